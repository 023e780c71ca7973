/**
 * Quote and submit throughput and latency at 1, 8 and 32 concurrent clients, each beside baselines measured in
 * the same run: a trivial authenticated Koa route, and a bare Temporal workflow start. Everything runs on this
 * machine (loopback only): a Temporal dev server, PostgreSQL, one worker process and the API in this process.
 * Usage: npm run bench [-- --requests 120]   Writes bench/RESULTS.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Client, Connection } from '@temporalio/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../src/db/data-source';
import { ensureDatabase, startEmbeddedPostgres, withDatabase, dropDatabase } from '../src/db/provision';
import { projectRoot, spawnEntry, startTemporalDevServer, stopProcess, waitFor } from '../src/dev/processes';
import { createApp } from '../src/http/app';
import { apiKeyAuth } from '../src/http/middleware';
import { createServices } from '../src/http/services';
import { createLogger } from '../src/logger';
import { createProject } from '../src/projects/api-keys';
import { loadRuntime } from '../src/runtime';
import { compactTypedData } from '../src/intents/typed-data';

const REQUESTS = Number(process.argv[process.argv.indexOf('--requests') + 1]) || 120;
const LEVELS = [1, 8, 32];
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const ARB_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as AddressInfo;
    s.close(() => resolve(port));
  });
});

interface Result { name: string; concurrency: number; rps: number; p50: number; p99: number }

/** Runs `n` calls of `fn` with `concurrency` in flight; returns throughput and latency percentiles (ms). */
async function measure(name: string, concurrency: number, n: number, fn: (i: number) => Promise<void>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      const i = next++;
      const t = performance.now();
      await fn(i);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { name, concurrency, rps: n / seconds, p50: pct(50), p99: pct(99) };
}

const cleanup: (() => Promise<unknown> | void)[] = [];

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-bench-'));
  fs.chmodSync(dataDir, 0o755);
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const temporal = await startTemporalDevServer({ port: await freePort(), namespace: 'default', logLevel: 'error' });
  cleanup.push(() => stopProcess(temporal.process));
  const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(path.join(projectRoot, '.data', 'bench-postgres'), await freePort(), () => undefined);
  if (pg) cleanup.push(() => pg.stop());
  const adminUrl = process.env.DATABASE_URL ?? pg!.url;
  const database = `orchestrator_bench_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(adminUrl, database);
  cleanup.push(() => dropDatabase(adminUrl, database));
  const env = {
    NODE_ENV: 'test', DATA_DIR: dataDir, DATABASE_URL: withDatabase(adminUrl, database), TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(3).toString('hex')}`, LOG_LEVEL: 'error',
  };
  const rt = loadRuntime({ ...process.env, ...env });
  const db = await openDatabase(env.DATABASE_URL, 20);
  cleanup.push(() => db.destroy());
  const worker = spawnEntry('worker', { ...env, ...secretsEnv(rt) });
  cleanup.push(() => stopProcess(worker));
  const connection = await Connection.connect({ address: temporal.address });
  cleanup.push(() => connection.close());
  const temporalClient = new Client({ connection });
  const services = createServices(rt, db, temporalClient, createLogger('silent', 'bench'));
  const server = createApp(services).listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => void server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { apiKey } = await createProject(db, 'bench');

  // Baseline 1: the same authentication middleware in front of a route that does nothing.
  const trivial = new Koa();
  trivial.use(apiKeyAuth(services)).use((ctx) => { ctx.body = { ok: true }; });
  const trivialServer = trivial.listen(0, '127.0.0.1');
  await once(trivialServer, 'listening');
  cleanup.push(() => void trivialServer.close());
  const trivialUrl = `http://127.0.0.1:${(trivialServer.address() as AddressInfo).port}/`;

  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const post = async (p: string, body: unknown, expect: number, extra: Record<string, string> = {}) => {
    const res = await fetch(`${url}${p}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown> & { intentOp?: Record<string, unknown> };
    if (res.status !== expect) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  // One funded account per request keeps submits independent (each reserves its own balance).
  const total = REQUESTS * LEVELS.length;
  const accounts = Array.from({ length: total }, () => privateKeyToAccount(generatePrivateKey()));
  for (let i = 0; i < accounts.length; i += 1000) {
    await post('/indexer/events', {
      events: accounts.slice(i, i + 1000).map((a) => ({ id: `bench-${a.address}`, type: 'balance', chainId: 8453, account: a.address, token: BASE_USDC, locked: '100000000', blockNumber: '1' })),
    }, 200, { 'x-indexer-key': rt.secrets.indexerApiKey });
  }
  await waitFor('worker', async () => (await fetch(`${url}/ready`)).ok, 30_000);
  const routeBody = (address: string) => ({ account: { address, accountType: 'EOA', setupOps: [] }, destinationChainId: 42161, tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }], options: {} });

  const results: Result[] = [];
  let cursor = 0;
  for (const c of LEVELS) {
    results.push(await measure('baseline: authenticated trivial Koa route', c, REQUESTS, async () => {
      const res = await fetch(trivialUrl, { headers });
      await res.arrayBuffer();
    }));
    results.push(await measure('baseline: bare workflow start', c, REQUESTS, async () => {
      await temporalClient.workflow.start('benchNoop', { taskQueue: `bench-noop-${c}`, workflowId: randomUUID(), args: [] });
    }));
    const batch = accounts.slice(cursor, cursor + REQUESTS);
    cursor += REQUESTS;
    const quotes: { account: (typeof accounts)[number]; op: Record<string, unknown> }[] = [];
    results.push(await measure('POST /intents/route (quote)', c, REQUESTS, async (i) => {
      const { intentOp } = await post('/intents/route', routeBody(batch[i].address), 200);
      quotes[i] = { account: batch[i], op: intentOp! };
    }));
    const signed = await Promise.all(quotes.map(async ({ account, op }) => {
      const sig = await account.signTypedData(compactTypedData(op as never, rt.config.intents.compactSigningContract) as never);
      return { ...op, originSignatures: (op.elements as unknown[]).map(() => sig), destinationSignature: sig };
    }));
    results.push(await measure('POST /intent-operations (submit)', c, REQUESTS, async (i) => {
      await post('/intent-operations', { signedIntentOp: signed[i] }, 201);
    }));
  }
  const rss = { api: process.memoryUsage().rss, worker: workerRss(worker.pid!) };

  const lines = report(results, rss);
  console.log(lines.join('\n'));
  fs.writeFileSync(path.join(projectRoot, 'bench', 'RESULTS.md'), lines.join('\n') + '\n');

}

function secretsEnv(rt: ReturnType<typeof loadRuntime>) {
  return { INDEXER_API_KEY: rt.secrets.indexerApiKey, ORCHESTRATOR_PRIVATE_KEY: rt.secrets.orchestratorPrivateKey, ALLOCATOR_PRIVATE_KEY: rt.secrets.allocatorPrivateKey };
}

function workerRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

function report(results: Result[], rss: { api: number; worker: number }): string[] {
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  const lines = [
    '# Benchmark results',
    '',
    `Command: \`npm run bench -- --requests ${REQUESTS}\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${mb(os.totalmem())}, Node ${process.version}).`,
    'Everything on one machine over loopback: Temporal dev server (SQLite in memory), PostgreSQL, one worker process, the API in the benchmark process.',
    'Ratios compare each figure with the baseline of the same concurrency measured in the same run: the authenticated trivial Koa route',
    'for HTTP cost, and a bare workflow start (no worker involved) for Temporal cost.',
    '',
    '| operation | clients | req/s | p50 ms | p99 ms | req/s vs trivial route | p50 vs trivial route | p50 vs workflow start |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const trivial = results.find((b) => b.concurrency === r.concurrency && b.name.includes('trivial'))!;
    const start = results.find((b) => b.concurrency === r.concurrency && b.name.includes('workflow start'))!;
    lines.push(`| ${r.name} | ${r.concurrency} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.rps / trivial.rps).toFixed(3)} | ${(r.p50 / trivial.p50).toFixed(1)}× | ${(r.p50 / start.p50).toFixed(2)}× |`);
  }
  lines.push('', `RSS after the run: API process ${mb(rss.api)} (includes the benchmark client), worker ${mb(rss.worker)}.`);
  return lines;
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
    process.exit();
  });
