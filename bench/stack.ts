/**
 * The system under test, on this machine over loopback: a Temporal dev server, PostgreSQL (DATABASE_URL's server with
 * a fresh database, else an embedded one), one worker process, the API process, and the baseline process
 * (bench/trivial-server.ts); every process's CPU time is watched (bench/cpu.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { openDatabase } from '../src/db/data-source';
import { ensureDatabase, startEmbeddedPostgres, withDatabase, dropDatabase } from '../src/db/provision';
import {
  projectRoot,
  spawnEntry,
  startTemporalDevServer,
  stopProcess,
  waitFor,
  type RunningTemporal,
} from '../src/dev/processes';
import { createProject } from '../src/projects/api-keys';
import { loadRuntime, type Runtime } from '../src/runtime';
import { watched, watchedDatabase } from './cpu';
import type { Kit, Stack } from './kit';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

function secretsEnv(rt: Runtime) {
  return {
    INDEXER_API_KEY: rt.secrets.indexerApiKey,
    ORCHESTRATOR_PRIVATE_KEY: rt.secrets.orchestratorPrivateKey,
    ALLOCATOR_PRIVATE_KEY: rt.secrets.allocatorPrivateKey,
  };
}

/**
 * Starts every process (each stopped by `cleanup`) and creates the project the load uses. `env`: settings of every
 * app process beside the bench's own; `workerEnv`: the worker's alone (bench/worker-memory.ts preloads its probe);
 * `temporal`: a Temporal already running (bench/capacity.ts's cluster) instead of a dev server of the stack's own.
 */
export async function startStack(
  cleanup: Kit['cleanup'],
  opts: { env?: Record<string, string>; workerEnv?: Record<string, string>; temporal?: RunningTemporal } = {},
): Promise<Stack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-bench-'));
  fs.chmodSync(dataDir, 0o755);
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const temporal =
    opts.temporal ??
    (await startTemporalDevServer({ port: await freePort(), namespace: 'default', logLevel: 'error' }));
  if (!opts.temporal) cleanup.push(() => stopProcess(temporal.process));
  const pg = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(path.join(projectRoot, '.data', 'bench-postgres'), await freePort(), () => undefined);
  if (pg) cleanup.push(() => pg.stop());
  const adminUrl = process.env.DATABASE_URL ?? pg!.url;
  const database = `orchestrator_bench_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(adminUrl, database);
  cleanup.push(() => dropDatabase(adminUrl, database));
  watchedDatabase.name = database;
  const env = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DATABASE_URL: withDatabase(adminUrl, database),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'error',
    RATE_LIMIT_RPS: '1000000', // measured with the quota check on every call (as in production) but never hit
    // A day's fill window: the deadlines of the thousands of intents the request rounds submit (each a workflow start,
    // tasks and activities, in bursts as they were submitted) would otherwise fire ten minutes later, in the middle of
    // the webhook and funnel measurements.
    INTENT_FILL_WINDOW_SECONDS: '86400',
    ...opts.env,
  };
  const rt = loadRuntime({ ...process.env, ...env });
  const appEnv = { ...env, ...secretsEnv(rt) };
  const db = await openDatabase(env.DATABASE_URL, 8);
  cleanup.push(() => db.destroy());
  const worker = spawnEntry('worker', { ...appEnv, ...opts.workerEnv });
  cleanup.push(() => stopProcess(worker));
  const apiPort = await freePort();
  const apiProcess = spawnEntry('api', { ...appEnv, PORT: String(apiPort), HOST: '127.0.0.1' });
  cleanup.push(() => stopProcess(apiProcess));
  const trivialPort = await freePort();
  const trivialProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/trivial-server.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...appEnv, PORT: String(trivialPort) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  cleanup.push(() => stopProcess(trivialProcess));
  Object.assign(watched, {
    API: apiProcess.pid!,
    'baseline server': trivialProcess.pid!,
    worker: worker.pid!,
    Temporal: temporal.process.pid!,
  });
  const connection = await Connection.connect({ address: temporal.address });
  cleanup.push(() => connection.close());
  const temporalClient = new Client({ connection });
  const url = `http://127.0.0.1:${apiPort}`;
  const trivialUrl = `http://127.0.0.1:${trivialPort}/`;
  await waitFor('API', async () => (await fetch(`${url}/ready`)).ok, 60_000);
  await waitFor('baseline server', async () => (await fetch(trivialUrl)).status === 401, 60_000);
  const { apiKey, projectId } = await createProject(db, 'bench');

  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const post: Stack['post'] = async (p, body, expect, extra = {}) => {
    const res = await fetch(`${url}${p}`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown> & { intentOp?: Record<string, unknown> };
    if (res.status !== expect) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    rt,
    db,
    temporalClient,
    url,
    trivialUrl,
    projectId,
    headers,
    post,
    pids: { api: apiProcess.pid!, worker: worker.pid!, temporal: temporal.process.pid! },
    indexer: { 'x-indexer-key': rt.secrets.indexerApiKey },
  };
}
