import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from './src/db/data-source';
import { ensureDatabase, withDatabase } from './src/db/provision';
import { createServices } from './src/http/services';
import { createApp } from './src/http/app';
import { createLogger } from './src/logger';
import { createProject } from './src/projects/api-keys';
import { loadRuntime } from './src/runtime';
import { ingestEvents } from './src/indexer/ingest';
import { createTemporalClient } from './src/temporal/client';
import { compactTypedData } from './src/intents/typed-data';
async function median(n: number, fn: (i: number) => Promise<unknown>) { const ts: number[] = []; for (let i = 0; i < n; i++) { const t = performance.now(); await fn(i); ts.push(performance.now() - t); } ts.sort((a, b) => a - b); return ts[Math.floor(n / 2)].toFixed(3); }
import pg from 'pg';
const QT: Record<string, number[]> = {};
const origQuery = (pg.Client.prototype as any).query;
(pg.Client.prototype as any).query = function (this: any, config: any, values: any, cb: any) {
  const text = (typeof config === 'string' ? config : config?.text ?? '').replace(/\s+/g, ' ').slice(0, 70);
  const t = performance.now();
  const r = origQuery.call(this, config, values, cb);
  if (r && typeof r.then === 'function') r.then(() => (QT[text] ??= []).push(performance.now() - t), () => undefined);
  return r;
};
process.on('exit', () => { for (const [k, v] of Object.entries(QT)) { if (v.length < 100) continue; v.sort((a, b) => a - b); console.log(v.length, v[Math.floor(v.length / 2)].toFixed(3), k); } });
(async () => {
  const admin = 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `prof_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(admin, database);
  const env = { NODE_ENV: 'test', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'p-')), DATABASE_URL: withDatabase(admin, database), TEMPORAL_ADDRESS: process.env.TADDR ?? '127.0.0.1:1', LOG_LEVEL: 'error', RATE_LIMIT_RPS: '1000000' };
  const rt = loadRuntime({ ...process.env, ...env });
  const db = await openDatabase(env.DATABASE_URL, 8);
  const s = createServices(rt, db, createTemporalClient(rt.temporalAddress, rt.config.temporalNamespace), createLogger('fatal', 'p'));
  const T: Record<string, number[]> = {};
  const wrap = (name: string, obj: any, fn: string) => { const orig = obj[fn].bind(obj); obj[fn] = async (...a: any[]) => { const t = performance.now(); try { return await orig(...a); } finally { (T[name] ??= []).push(performance.now() - t); } }; };
  wrap('consume', s.rateLimits, 'consume');
  process.on('exit', () => { for (const [k, v] of Object.entries(T)) { v.sort((a, b) => a - b); console.log(k, v.length, v[Math.floor(v.length / 2)].toFixed(3)); } });
  const app = createApp(s);
  const server = app.listen(0, '127.0.0.1'); await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as any).port}`;
  const { apiKey } = await createProject(db, 'p');
  const accts = Array.from({ length: 1200 }, () => privateKeyToAccount(generatePrivateKey()));
  await ingestEvents(db, accts.map((a) => ({ id: `b-${a.address}`, type: 'balance', chainId: 8453, account: a.address, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', locked: '100000000', blockNumber: '1' })) as never, rt.defaultLockTag, { registry: rt.registry, config: rt.config });
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  let k = 0;
  for (let round = 0; round < 3; round++) {
    const ops: any[] = [];
    const base = k;
    console.log('quote', await median(200, async () => { const a = accts[k++]; const r = await fetch(`${url}/intents/route`, { method: 'POST', headers, body: JSON.stringify({ account: { address: a.address, accountType: 'EOA', setupOps: [] }, destinationChainId: 42161, tokenRequests: [{ tokenAddress: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', amount: '1000000' }], options: {} }) }); if (r.status !== 200) throw new Error(await r.text()); ops.push((await r.json()).intentOp); }));
    const signed = await Promise.all(ops.map(async (op, i) => { const sig = await accts[base + i].signTypedData(compactTypedData(op, rt.config.intents.compactSigningContract) as never); return { ...op, originSignatures: op.elements.map(() => sig), destinationSignature: sig }; }));
    if (process.env.NOSUBMIT) continue;
    console.log('submit', await median(200, async (i) => { const r = await fetch(`${url}/intent-operations`, { method: 'POST', headers, body: JSON.stringify({ signedIntentOp: signed[i] }) }); if (r.status !== 201) throw new Error(await r.text()); await r.json(); }));
  }
  process.exit(0);
})();
