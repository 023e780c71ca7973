import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../../src/db/data-source';
import { ensureDatabase, withDatabase } from '../../src/db/provision';
import {
  projectRoot,
  spawnEntry,
  startTemporalDevServer,
  stopProcess,
  RunningTemporal,
  waitFor,
} from '../../src/dev/processes';
import { createProject } from '../../src/projects/api-keys';
import { createTemporalClient } from '../../src/temporal-sdk/client';
import { fillAndClaim } from '../support/deposits';
import { readTestEnv } from '../support/env';
import { ARB_USDC, getCompactTypedData, lockedSnapshot, TX } from '../support/fixtures';
import { onFreePorts } from '../support/global-setup';
import { Receiver } from '../support/receiver';

/**
 * The three dependencies taken away in turn (no worker polling, Temporal stopped, PostgreSQL
 * paused), with real processes: a private Temporal dev server (kept in a file, so it can be restarted), a private
 * embedded PostgreSQL (whose processes this test may SIGSTOP), and API and worker processes of our own, whose
 * request deadline is 2 s (REQUEST_DEADLINE_SECONDS) so a pause is short.
 */
const DP = '/deposit-processor';
const ACCOUNT = '0x4444444444444444444444444444444444444444';
let scratch: string;
let temporal: RunningTemporal;
let temporalPort: number;
let temporalClient: Client;
let postgres: { url: string; process: ChildProcess };
let db: DataSource;
let env: Record<string, string>;
let apiKey: string;
const processes: ChildProcess[] = [];
const receiver = new Receiver([]);

/** The private PostgreSQL (test/support/postgres-process.ts), once it accepts connections. */
function startPostgres(port: number): Promise<{ url: string; process: ChildProcess }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/postgres-process.ts', path.join(scratch, 'postgres'), String(port)],
    { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      output += d;
      const url = /^ready (\S+)$/m.exec(output)?.[1];
      if (url) resolve({ url, process: proc });
    });
    proc.stderr!.on('data', (d) => (output += d));
    proc.once('exit', (code) => reject(new Error(`private PostgreSQL exited (${code}): ${output}`)));
  });
}

/** Our API process on a free port (another when the port was taken meanwhile). */
async function startApiProcess(extra: Record<string, string> = {}): Promise<string> {
  return onFreePorts(async (port) => {
    const proc = spawnEntry('api', { ...env, ...extra, PORT: String(port) });
    processes.push(proc);
    const url = `http://127.0.0.1:${port}`;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`api exited (${code})`))),
    );
    exited.catch(() => undefined); // an exit after the start is the test's to notice, not an unhandled rejection
    await Promise.race([waitFor('API', async () => (await fetch(`${url}/health`)).ok, 60_000), exited]);
    return url;
  });
}

let stopping = false;
/** A worker process, restarted when it exits (as `npm start` or any supervisor does: a worker may give up on a Temporal that stays away). */
function startWorkerProcess(extra: Record<string, string> = {}): void {
  const proc = spawnEntry('worker', { ...env, ...extra });
  processes.push(proc);
  proc.once('exit', () => !stopping && startWorkerProcess(extra));
}

/** Every request gets 10 s at most: past that it hangs, which is what this suite must never see. */
async function call(base: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const testEvent = (base: string) => call(base, 'POST', `${DP}/webhooks/test`, { type: 'deposit-received' });
const recorded = async (): Promise<number> => Number((await db.query('SELECT count(*) AS n FROM webhook_events'))[0].n);
/** Everything recorded is delivered: the receiver has accepted exactly as many events as PostgreSQL holds. */
const allDelivered = () =>
  waitFor('every recorded event delivered', async () => receiver.accepted.size === (await recorded()), 45_000);

/**
 * An intent of a fresh account (5 USDC locked on Base) submitted through `base`: accepted (201, PENDING) once its
 * transaction commits; its lifecycle start is performed after the answer. Its fill deadline is 5 s away: the
 * lifecycle's start delay ends then, and it reads what was recorded meanwhile.
 */
async function submitIntent(base: string): Promise<string> {
  const account = privateKeyToAccount(generatePrivateKey());
  expect((await indexer(base, [lockedSnapshot(account.address, '5000000')])).status).toBe(200);
  const route = await call(base, 'POST', '/intents/route', {
    account: { address: account.address, accountType: 'EOA', setupOps: [] },
    destinationChainId: 42161,
    tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
    options: { customDeadline: Math.floor(Date.now() / 1000) + 5 },
  });
  expect(route.status).toBe(200);
  const op = route.json.intentOp;
  const signature = await account.signTypedData(getCompactTypedData(op));
  const submitted = await call(base, 'POST', '/intent-operations', {
    signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature },
  });
  expect(submitted).toMatchObject({ status: 201, json: { result: { status: 'PENDING' } } });
  return submitted.json.result.id;
}
const indexer = (base: string, events: unknown[]) =>
  call(base, 'POST', '/indexer/events', { events }, { 'x-indexer-key': env.INDEXER_API_KEY });
/**
 * The fill on the destination and the claim on the origin: what completes the intent. The batch records the status;
 * the lifecycle, in its start delay, is not signalled: it reads the record when the delay ends, and ends.
 */
const completeOnChain = (base: string, id: string) =>
  indexer(base, fillAndClaim(id, { chainId: 42161, txHash: TX(1) }, { chainId: 8453, txHash: TX(2) }));
/** The lifecycle's run as Temporal reports it (RUNNING, COMPLETED, ...). */
const lifecycleRun = async (id: string): Promise<string> =>
  (await temporalClient.workflow.getHandle(`intent-${id}`).describe()).status.name;
const statusOf = async (base: string, id: string): Promise<string> =>
  (await call(base, 'GET', `/intent-operation/${id}`)).json.status;
/** The lifecycle's start and signals still queued in PostgreSQL (not yet accepted by Temporal). */
const queuedFor = async (id: string): Promise<number> =>
  Number(
    (
      await db.query(
        'SELECT (SELECT count(*) FROM workflow_outbox WHERE workflow_id = $1) + (SELECT count(*) FROM signal_outbox WHERE workflow_id = $1) AS n',
        [`intent-${id}`],
      )
    )[0].n,
  );

let api: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-outages-'));
  fs.chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as the `postgres` user when we are root
  temporal = await onFreePorts((port) =>
    startTemporalDevServer({
      port,
      namespace: 'default',
      logLevel: 'error',
      dbFile: path.join(scratch, 'temporal.sqlite'),
    }),
  );
  temporalPort = Number(temporal.address.split(':')[1]);
  temporalClient = createTemporalClient(temporal.address, 'default'); // lazy: it reconnects when Temporal restarts
  postgres = await onFreePorts(startPostgres);
  await ensureDatabase(postgres.url, 'outages');
  const databaseUrl = withDatabase(postgres.url, 'outages');
  db = await openDatabase(databaseUrl, 2);
  env = {
    ...readTestEnv().env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: `outages-${randomBytes(4).toString('hex')}`,
    HOST: '127.0.0.1',
    REQUEST_DEADLINE_SECONDS: '2',
    EXTERNAL_DEADLINE_SECONDS: '3',
    // The sweeper leaves a row to the process that queued it for this long: the unpolled queue's API performs its own
    // starts (a start by the main worker's sweeper would put that lifecycle on the polled queue).
    OUTBOX_GRACE_SECONDS: '10',
    LOG_LEVEL: 'silent',
  };
  ({ apiKey } = await createProject(db, 'outages'));
  await receiver.start();
  startWorkerProcess();
  api = await startApiProcess();
  const endpoint = await call(api, 'POST', `${DP}/webhooks/endpoints`, {
    url: receiver.url,
    types: ['deposit-received'],
  });
  expect(endpoint.status).toBe(201);
  receiver.secrets.push(endpoint.json.secret);
  await waitFor('ready', async () => (await fetch(`${api}/ready`)).ok, 60_000);
}, 180_000);

afterAll(async () => {
  stopping = true;
  for (const proc of processes) await stopProcess(proc);
  await temporalClient?.connection.close();
  if (temporal) await stopProcess(temporal.process);
  await db?.destroy();
  if (postgres) await stopProcess(postgres.process);
  if (receiver.url) await receiver.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}, 60_000);

test('22.6 no worker polling: /ready names the worker; a submit is accepted and completes once a worker polls', async () => {
  const queue = `unpolled-${randomBytes(4).toString('hex')}`;
  const lonely = await startApiProcess({ TEMPORAL_TASK_QUEUE: queue });
  const ready = await call(lonely, 'GET', '/ready');
  expect(ready).toMatchObject({
    status: 503,
    json: { status: 'unavailable', database: 'ok', temporal: 'ok', worker: 'down' },
  });

  const id = await submitIntent(lonely);
  expect((await completeOnChain(lonely, id)).status).toBe(200);
  // Temporal has the lifecycle's start (nothing left in the outbox), but no worker runs it: held.
  await waitFor('the start accepted by Temporal', async () => (await queuedFor(id)) === 0, 30_000);
  expect({ status: await statusOf(lonely, id), lifecycle: await lifecycleRun(id) }).toEqual({
    status: 'COMPLETED',
    lifecycle: 'RUNNING',
  });
  startWorkerProcess({ TEMPORAL_TASK_QUEUE: queue });
  await waitFor('the lifecycle ends once a worker polls', async () => (await lifecycleRun(id)) === 'COMPLETED', 45_000);
  await waitFor('ready once a worker polls', async () => (await call(lonely, 'GET', '/ready')).status === 200, 30_000);
}, 120_000);

test('22.6 Temporal stopped: /ready names it, a route that needs only PostgreSQL answers, submits commit and complete once it is back', async () => {
  await stopProcess(temporal.process, 'SIGKILL');
  const ready = await call(api, 'GET', '/ready');
  expect(ready).toMatchObject({ status: 503, json: { status: 'unavailable', database: 'ok', temporal: 'down' } });
  expect((await call(api, 'GET', `${DP}/webhooks/endpoints`)).status).toBe(200);
  expect((await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`)).status).toBe(200);
  // The submit commits with its outbox row and answers; the start waits for Temporal. The events, recorded, queue
  // nothing for a lifecycle in its start delay.
  const id = await submitIntent(api);
  expect((await completeOnChain(api, id)).status).toBe(200);
  expect({ queued: await queuedFor(id), status: await statusOf(api, id) }).toEqual({ queued: 1, status: 'COMPLETED' });

  temporal = await startTemporalDevServer({
    port: temporalPort,
    namespace: 'default',
    logLevel: 'error',
    dbFile: path.join(scratch, 'temporal.sqlite'),
  });
  await waitFor(
    'the lifecycle ends once Temporal is back',
    async () => (await lifecycleRun(id)) === 'COMPLETED',
    90_000,
  );
  await waitFor('the outbox emptied', async () => (await queuedFor(id)) === 0, 30_000);
  await waitFor('ready once Temporal is back', async () => (await call(api, 'GET', '/ready')).status === 200, 60_000);
}, 180_000);

/** Every process of the private cluster: the postmaster and its backends. */
function postgresProcesses(): number[] {
  const postmaster = Number(fs.readFileSync(path.join(scratch, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    });
  return [postmaster, ...children];
}

test("22.6 PostgreSQL paused: 503 + Retry-After in each host's body, /ready names it; nothing half-written, everything accepted completes", async () => {
  const before = await recorded();
  const paused = postgresProcesses();
  for (const pid of paused) process.kill(pid, 'SIGSTOP');
  let attempted: Awaited<ReturnType<typeof testEvent>>;
  try {
    expect(await call(api, 'GET', '/ready')).toMatchObject({
      status: 503,
      json: { status: 'unavailable', database: 'down', temporal: 'ok' },
    });
    const alps = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`);
    expect(alps).toMatchObject({
      status: 503,
      retryAfter: '5',
      json: { message: expect.any(String), errors: [{ message: expect.any(String) }], traceId: expect.any(String) },
    });
    const blanc = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, undefined, {
      'x-api-version': '2026-04.blanc',
    });
    expect(blanc).toMatchObject({
      status: 503,
      retryAfter: '5',
      json: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), traceId: expect.any(String) },
    });
    const legacy = await call(api, 'GET', `/legacy/accounts/${ACCOUNT}/portfolio`);
    expect(legacy).toMatchObject({
      status: 503,
      retryAfter: '5',
      json: { message: expect.any(String), errors: expect.any(Array) },
    });
    attempted = await testEvent(api);
    expect(attempted).toMatchObject({
      status: 503,
      retryAfter: '5',
      json: { error: expect.any(String), code: 'SERVICE_UNAVAILABLE', traceId: expect.any(String) },
    });
  } finally {
    for (const pid of paused) process.kill(pid, 'SIGCONT');
  }
  // The refused submit either never committed (nothing recorded) or committed late and is delivered like any other.
  expect(await recorded()).toBeLessThanOrEqual(before + 1);
  await waitFor('ready once PostgreSQL is back', async () => (await call(api, 'GET', '/ready')).status === 200, 30_000);
  expect((await testEvent(api)).status).toBe(200);
  await allDelivered();
}, 120_000);
