/**
 * The capacity model's measurements, on a Temporal cluster (temporal/start-cluster.sh: frontend, two history, matching
 * and worker as separate processes, on this PostgreSQL server) with the API and one worker (bench/stack.ts): for each
 * operation, CPU ms per operation of every process (the Temporal services by their pid files, the PostgreSQL server as
 * a whole: bench/cpu.ts postgresCpuMs) and PostgreSQL rows written per operation
 * by table (pg_stat_user_tables), then what 1,000 and 10,000 submits/s need (bench/capacity-model.ts).
 * Usage: npx tsx bench/capacity.ts [--n 500]. Writes the "Capacity (cluster)" section of bench/RESULTS.md, keeping
 * the others; docs/capacity.md reads it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { dropDatabase, withDatabase } from '../src/db/provision';
import {
  clusterBasePort,
  projectRoot,
  startTemporalCluster,
  stopProcess,
  waitFor,
  type RunningTemporal,
} from '../src/dev/processes';
import { demand, processesFor, type OperationCost } from './capacity-model';
import { cpuMs, postgresCpuMs, settle, watched } from './cpu';
import { balance } from './indexer';
import { arg, type Kit, runBench, type Stack } from './kit';
import { routeBody, sign } from './quotes';
import { startStack } from './stack';

const N = Number(arg('--n')) || 500;
/** Requests in flight: enough to keep every process busy on 2 cores without queueing most of the time in the load. */
const CONCURRENCY = 16;
/** Balance events measured per --n: 20 batches of 1,000 at the default --n. */
const BALANCE_EVENTS_PER_N = 40;
/** Fills and claims per indexer batch, as an indexer posting a block's events would. */
const EVENT_BATCH = 100;
const SERVICES = ['frontend', 'history', 'history2', 'matching', 'worker'];
/** Per submit: one quote, the submit with its lifecycle, two balance snapshots (funding, after the claim), one webhook. */
const MIX = { quote: 1, 'submit + lifecycle': 1, 'balance event': 2, 'webhook delivery': 1 };
const RATES = [1000, 10_000];
const SECTION = '## Capacity (cluster)';
/** How long the idle cost is measured before each operation. */
const IDLE_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: Kit['cleanup'] = [];

/** What one sample reads: CPU ms per process kind and, per table, rows inserted + updated + deleted so far. */
interface Sample {
  cpu: Record<string, number>;
  rows: Record<string, number>;
}

async function runConcurrently(n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

function sampler(databases: Record<string, PgClient>) {
  return async (): Promise<Sample> => {
    // Stats reach pg_stat_user_tables when a backend flushes them (at most every second, within 10 s when idle).
    const rows: Record<string, number> = {};
    for (const [db, client] of Object.entries(databases)) {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const stats = await client.query<{ relname: string; n: string }>(
        'SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables',
      );
      for (const s of stats.rows) rows[`${db}.${s.relname}`] = Number(s.n);
    }
    return {
      cpu: {
        ...Object.fromEntries(Object.entries(watched).map(([name, pid]) => [name, cpuMs(pid)])),
        PostgreSQL: postgresCpuMs(),
      },
      rows,
    };
  };
}

/** What happened between two samples. */
const delta = (before: Sample, after: Sample): OperationCost => {
  const diff = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] ?? 0)]));
  return { cpuMs: diff(after.cpu, before.cpu), rows: diff(after.rows, before.rows) };
};

/**
 * Per operation: what `n` operations took (`run`, over `runMs`) less what an idle cluster spends in as long (`idle`,
 * over `idleMs`: Temporal's shard and queue upkeep, PostgreSQL's background work, other load on the server).
 */
function perOperation(run: OperationCost, runMs: number, idle: OperationCost, idleMs: number, n: number) {
  const net = (r: Record<string, number>, i: Record<string, number>) =>
    Object.fromEntries(
      Object.keys(r)
        .map((k) => [k, Math.max(0, r[k] - ((i[k] ?? 0) * runMs) / idleMs) / n] as const)
        .filter(([, v]) => v > 0),
    );
  return { cpuMs: net(run.cpuMs, idle.cpuMs), rows: net(run.rows, idle.rows) };
}

/** A receiver answering 200 to every webhook, counting them. */
async function webhookReceiver(): Promise<{ url: string; received: () => number }> {
  let received = 0;
  const server = http
    .createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.end('{"ok":true}');
      });
    })
    .listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received };
}

/** The operations, each over `n` fresh accounts: a round of 50 first (unrecorded) warms every process. */
function operations(stack: Stack, poll: PgClient, hook: { received: () => number }) {
  const fund = async (accounts: PrivateKeyAccount[], block = '1') => {
    for (let i = 0; i < accounts.length; i += 1000)
      await stack.post(
        '/indexer/events',
        { events: accounts.slice(i, i + 1000).map((a) => balance(a.address, block)) },
        200,
        stack.indexer,
      );
  };
  const quote = async (accounts: PrivateKeyAccount[]) => {
    const signed: Awaited<ReturnType<typeof sign>>[] = [];
    await runConcurrently(accounts.length, async (i) => {
      const { intentOp } = await stack.post('/intents/route', routeBody(accounts[i].address), 200);
      signed[i] = await sign(stack, accounts[i], intentOp!);
    });
    return signed;
  };
  const completed = async () =>
    Number((await poll.query(`SELECT count(*) AS n FROM intents WHERE status = 'COMPLETED'`)).rows[0].n);
  return {
    /** balance events in batches of 1,000, each for an account never seen */
    'balance event': { prepare: async () => undefined, run: fund, per: BALANCE_EVENTS_PER_N },
    quote: { prepare: fund, run: quote },
    /** the submit, then its fill and its claim posted by the indexer in batches, until the intent is COMPLETED */
    'submit + lifecycle': {
      prepare: async (accounts: PrivateKeyAccount[]) => {
        await fund(accounts);
        return quote(accounts);
      },
      run: async (_: PrivateKeyAccount[], signed: Awaited<ReturnType<typeof quote>>) => {
        const before = await completed();
        await runConcurrently(signed.length, async (i) => {
          await stack.post('/intent-operations', { signedIntentOp: signed[i] }, 201);
        });
        const nonces = signed.map((op) => BigInt(op.nonce).toString());
        const now = Math.floor(Date.now() / 1000);
        const tx = () => `0x${randomBytes(32).toString('hex')}`;
        for (const type of ['fill', 'claim'] as const)
          for (let i = 0; i < nonces.length; i += EVENT_BATCH)
            await stack.post(
              '/indexer/events',
              {
                events: nonces.slice(i, i + EVENT_BATCH).map((nonce) => ({
                  id: `capacity-${type}-${nonce}`,
                  type,
                  chainId: type === 'fill' ? 42161 : 8453,
                  nonce,
                  transactionHash: tx(),
                  timestamp: now,
                  ...(type === 'claim' ? { blockNumber: '2' } : {}),
                })),
              },
              200,
              stack.indexer,
            );
        await waitFor('every lifecycle COMPLETED', async () => (await completed()) >= before + nonces.length, 600_000);
      },
    },
    /** a deposit-received event emitted through the test route, until its delivery arrived */
    'webhook delivery': {
      prepare: async () => undefined,
      run: async (accounts: PrivateKeyAccount[]) => {
        const target = hook.received() + accounts.length;
        await runConcurrently(accounts.length, async () => {
          await stack.post('/deposit-processor/webhooks/test', { type: 'deposit-received' }, 200);
        });
        await waitFor('every webhook delivered', async () => hook.received() >= target, 600_000);
      },
    },
  } as Record<
    string,
    {
      prepare: (accounts: PrivateKeyAccount[]) => Promise<unknown>;
      run: (accounts: PrivateKeyAccount[], prepared: never) => Promise<unknown>;
      /** operations measured per --n (cheap ones need more to rise above a 10 ms clock tick) */
      per?: number;
    }
  >;
}

const fmt = (v = 0) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

function report(costs: Record<string, OperationCost>, load: string): string[] {
  const procs = [...new Set(Object.values(costs).flatMap((c) => Object.keys(c.cpuMs)))];
  const tables = [...new Set(Object.values(costs).flatMap((c) => Object.keys(c.rows)))].sort();
  const lines = [
    SECTION,
    '',
    `Measured by \`npx tsx bench/capacity.ts --n ${N}\` (${new Date().toISOString().slice(0, 10)}): ${N} operations of each ` +
      `kind (${(N * BALANCE_EVENTS_PER_N).toLocaleString('en')} balance events) at ${CONCURRENCY} in flight on a Temporal cluster of separate processes (temporal/start-cluster.sh, 4 ` +
      `history shards) on the local PostgreSQL, one API and one worker process; ${os.cpus().length} cores shared with ` +
      `other work (load average ${load}). CPU is utime + stime from /proc per operation; PostgreSQL's is the whole ` +
      `server's (running processes and ended backends), shared with that other work. Each figure is net of what the idle cluster spent over as long (measured for ${IDLE_MS / 1000} s ` +
      `before each operation). Rows are n_tup_ins + n_tup_upd + n_tup_del of pg_stat_user_tables per operation ("app." the ` +
      `orchestrator's database, "temporal." and "temporal_visibility." the cluster's).`,
    '',
    '### CPU ms per operation, by process',
    '',
    `| operation | ${procs.join(' | ')} | total |`,
    `| --- | ${procs.map(() => '---:').join(' | ')} | ---: |`,
    ...Object.entries(costs).map(
      ([op, c]) =>
        `| ${op} | ${procs.map((p) => fmt(c.cpuMs[p])).join(' | ')} | ${fmt(Object.values(c.cpuMs).reduce((a, b) => a + b, 0))} |`,
    ),
    '',
    '### PostgreSQL rows written per operation, by table',
    '',
    `| table | ${Object.keys(costs).join(' | ')} |`,
    `| --- | ${Object.keys(costs)
      .map(() => '---:')
      .join(' | ')} |`,
    ...tables.map(
      (t) =>
        `| ${t} | ${Object.values(costs)
          .map((c) => fmt(c.rows[t]))
          .join(' | ')} |`,
    ),
    '',
    `### Projection: submits/s with their lifecycles (per submit: ${Object.entries(MIX)
      .map(([op, k]) => `${k} × ${op}`)
      .join(', ')})`,
    '',
    `| process | ${RATES.map((r) => `busy cores at ${r.toLocaleString('en')}/s | processes at 60 %`).join(' | ')} |`,
    `| --- | ${RATES.map(() => '---: | ---:').join(' | ')} |`,
  ];
  const demands = RATES.map((r) => demand(r, costs, MIX));
  for (const p of procs)
    lines.push(`| ${p} | ${demands.map((d) => `${fmt(d.cores[p])} | ${processesFor(d.cores[p] ?? 0)}`).join(' | ')} |`);
  lines.push(
    '',
    `| table | ${RATES.map((r) => `rows written/s at ${r.toLocaleString('en')}/s`).join(' | ')} |`,
    `| --- | ${RATES.map(() => '---:').join(' | ')} |`,
  );
  const byWrites = Object.keys(demands[0].writesPerSecond).sort(
    (a, b) => demands[0].writesPerSecond[b] - demands[0].writesPerSecond[a],
  );
  for (const t of byWrites) lines.push(`| ${t} | ${demands.map((d) => fmt(d.writesPerSecond[t])).join(' | ')} |`);
  const totals = demands.map((d) => Object.values(d.writesPerSecond).reduce((a, b) => a + b, 0));
  lines.push(`| all tables | ${totals.map(fmt).join(' | ')} |`);
  return lines;
}

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const temporalDb = `temporal_capacity_${randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-capacity-'));
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanup.push(async () => {
    for (const db of [temporalDb, `${temporalDb}_visibility`]) await dropDatabase(adminUrl, db);
  });
  const cluster: RunningTemporal = await startTemporalCluster({
    port: await clusterBasePort(),
    namespace: 'default',
    dir,
    databaseUrl: adminUrl,
    databaseName: temporalDb,
    logLevel: 'error',
  });
  cleanup.push(() => stopProcess(cluster.process));
  const stack = await startStack(cleanup, { temporal: cluster });
  delete watched['baseline server'];
  delete watched.Temporal; // the script that runs the services: each service is watched by its own pid
  for (const s of SERVICES)
    watched[`Temporal ${s}`] = Number(fs.readFileSync(path.join(dir, 'run', `${s}.pid`), 'utf8').trim());

  const connect = async (db: string) => {
    const c = new PgClient({ connectionString: withDatabase(adminUrl, db), application_name: 'capacity-bench' });
    await c.connect();
    cleanup.push(() => c.end());
    return c;
  };
  const appDb = new URL(stack.rt.databaseUrl).pathname.slice(1);
  const databases = {
    app: await connect(appDb),
    temporal: await connect(temporalDb),
    temporal_visibility: await connect(`${temporalDb}_visibility`),
  };
  const sample = sampler(databases);
  const hook = await webhookReceiver();
  const res = await fetch(`${stack.url}/deposit-processor/webhooks/endpoints`, {
    method: 'POST',
    headers: stack.headers,
    body: JSON.stringify({ url: hook.url }),
  });
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${await res.text()}`);

  const ops = operations(stack, databases.app, hook);
  const costs: Record<string, OperationCost> = {};
  const fresh = (n: number) => Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
  for (const [name, op] of Object.entries(ops)) {
    const warm = fresh(50);
    await op.run(warm, (await op.prepare(warm)) as never);
    const n = N * (op.per ?? 1);
    const accounts = fresh(n);
    const prepared = await op.prepare(accounts);
    await settle();
    await sleep(11_000); // the preparation's table stats flushed
    const idleStart = await sample();
    await sleep(IDLE_MS);
    const before = await sample();
    const started = performance.now();
    await op.run(accounts, prepared as never);
    // The work an operation leaves behind (Temporal's transfer and visibility tasks, the stats flush) counts too.
    await sleep(11_000);
    const after = await sample();
    const runMs = performance.now() - started;
    costs[name] = perOperation(delta(before, after), runMs, delta(idleStart, before), IDLE_MS, n);
    console.log(name, JSON.stringify(costs[name]));
  }
  const lines = report(
    costs,
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', '),
  );
  console.log(lines.join('\n'));
  const results = path.join(projectRoot, 'bench', 'RESULTS.md');
  const old = fs.existsSync(results) ? fs.readFileSync(results, 'utf8') : '';
  const kept = old.replace(/\n## Capacity \(cluster\)\n[\s\S]*?(?=\n## |$)/, '').trimEnd();
  fs.writeFileSync(results, `${kept}\n\n${lines.join('\n')}\n`);
}

runBench(main, cleanup);
