import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { Connection, type Client } from '@temporalio/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../../src/db/data-source';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/db/provision';
import type { ChildProcess } from 'node:child_process';
import { spawnEntry, stopProcess, waitFor } from '../../src/dev/processes';
import { onFreePorts } from './global-setup';
import { createApp } from '../../src/api/app';
import type { Services } from '../../src/http/services';
import { createServices, temporalCallTimeoutMs } from '../../src/api/services';
import { createTemporalClient } from '../../src/temporal-sdk/client';
import { createLogger } from '../../src/logger';
import { createProject } from '../../src/projects/api-keys';
import { loadRuntime } from '../../src/runtime';
import { chainRpc } from '../../src/chains/rpc';
import { readTestEnv, TestEnv } from './env';
import { lockedSnapshot } from './fixtures';
import { CHAIN_STREAMS, followChainWorkflowId } from '../../workflows/contracts/follow-chain';

export interface Api {
  url: string;
  env: TestEnv;
  services: Services;
  db: DataSource;
  temporal: Client;
  apiKey: string;
  projectId: string;
  indexerKey: string;
  close(): Promise<void>;
}

/**
 * The run's environment with a database, task queue and worker list of a suite's own, on the run's PostgreSQL server
 * and Temporal: the run's worker never picks its workflows, and what it stores is seen by no other suite.
 */
async function ownEnv(run: TestEnv): Promise<TestEnv> {
  const suffix = randomBytes(4).toString('hex');
  const database = `${run.database}_${suffix}`;
  await ensureDatabase(run.adminUrl, database);
  const databaseUrl = withDatabase(run.adminUrl, database);
  const taskQueue = `${run.taskQueue}-${suffix}`;
  const workerPidFile = path.join(run.dataDir, `workers-${suffix}.pid`);
  fs.writeFileSync(workerPidFile, '');
  return {
    ...run,
    databaseUrl,
    database,
    taskQueue,
    workerPidFile,
    env: { ...run.env, DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue },
  };
}

/**
 * Starts every id sequence of a database of a suite's own at a random offset: workflow ids are built from row ids
 * (`deposit-<id>`), and the run's Temporal namespace already holds the shared database's `deposit-1`, ..., which a
 * fresh database's deposit would otherwise join (starts use the existing workflow). Within int4 for any sequence type.
 */
export async function offsetSequences(db: DataSource): Promise<void> {
  const offset = 100_000_000 + Math.floor(Math.random() * 1_000_000_000);
  const sequences: { name: string }[] = await db.query(
    `SELECT format('%I.%I', sequence_schema, sequence_name) AS name FROM information_schema.sequences`,
  );
  for (const { name } of sequences) await db.query('SELECT setval($1::regclass, $2)', [name, offset]);
}

/**
 * The real HTTP app in this process, against the Postgres, Temporal and worker that global setup started.
 * `ownDatabase`: against a database and task queue of its own instead (migrated here), with no worker until the
 * suite starts one (`startWorker(api.env)`), and `settings` (environment variables) of its own for both; close kills
 * the workers started so and drops the database. For suites
 * whose data would decide other suites' outcomes, e.g. anvil chains' blocks, numbered from 0 at today's timestamps,
 * which the indexer's clock check would hold against other suites' stamped events of the same chain.
 */
export async function startApi(opts: { ownDatabase?: boolean; settings?: Record<string, string> } = {}): Promise<Api> {
  const run = readTestEnv();
  const own = opts.ownDatabase ? await ownEnv(run) : run;
  const env = own !== run && opts.settings ? { ...own, env: { ...own.env, ...opts.settings } } : own;
  // The API runs in this process, and suites move a chain's RPC_URL_<id> as they go (a chain down, none at all).
  const rt = { ...loadRuntime({ ...process.env, ...env.env }), rpc: chainRpc(process.env) };
  const db = await openDatabase(env.databaseUrl, 4);
  if (env !== run) await offsetSequences(db);
  const temporal = createTemporalClient(env.temporalAddress, env.namespace, temporalCallTimeoutMs(rt.config));
  const services = createServices(rt, db, temporal, createLogger('silent', 'test'));
  const server: Server = createApp(services).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { apiKey, projectId } = await createProject(db, 'test');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    env,
    services,
    db,
    temporal,
    apiKey,
    projectId,
    indexerKey: rt.secrets.indexerApiKey,
    async close() {
      if (env !== run) await stopFollowing(temporal, env.taskQueue);
      services.relayerFeeds.endAll();
      server.close();
      // Keep-alive connections wait past any client's idle timeout: a test run's are dropped at once.
      server.closeAllConnections();
      await once(server, 'close');
      await services.outbox.drain();
      await temporal.connection.close();
      await services.rateLimits.close();
      await db.destroy();
      if (env !== run) {
        killWorkers(env);
        await dropDatabase(env.adminUrl, env.database);
      }
    },
  };
}

/** Kills every worker of this test run (or of a suite's own database) at once (SIGKILL: no draining, as in a crash). */
export function killWorkers(env: TestEnv): void {
  for (const pid of fs.readFileSync(env.workerPidFile, 'utf8').split('\n').filter(Boolean).map(Number)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The chains each task queue's workers follow (INDEXER_CHAINS), whose chain-indexer workflows its suite ends. */
const followed = new Map<string, number[]>();

/**
 * Starts a fresh worker process (left running; global teardown, or closing the API that has its own database, stops
 * it) and waits until it polls its task queue, so that a test's own waits never include a worker's start.
 */
export async function startWorker(env: TestEnv): Promise<void> {
  const worker = spawnEntry('worker', env.env);
  fs.appendFileSync(env.workerPidFile, `${worker.pid}\n`);
  const chains = (env.env.INDEXER_CHAINS ?? '').split(',').filter(Boolean).map(Number);
  if (chains.length) followed.set(env.taskQueue, chains);
  const connection = await Connection.connect({ address: env.temporalAddress });
  try {
    // A worker polls once its lease loop runs (src/main/worker.ts); a killed one's pollers stay listed a while, so
    // this one is told apart by its identity (`<pid>@<host>`).
    await waitFor(
      `worker ${worker.pid} polling ${env.taskQueue}`,
      async () => {
        if (worker.exitCode !== null) throw new Error(`worker ${worker.pid} exited (${worker.exitCode})`);
        const { pollers } = await connection.workflowService.describeTaskQueue({
          namespace: env.namespace,
          taskQueue: { name: env.taskQueue, kind: 1 }, // temporal.api.enums.v1: TaskQueueKind.NORMAL
          taskQueueType: 1, // TaskQueueType.WORKFLOW
        });
        return pollers.some((p) => p.identity?.startsWith(`${worker.pid}@`));
      },
      90_000,
    );
  } finally {
    await connection.close();
  }
}

/**
 * Ends the chain-indexer workflows of a suite's workers: their ids name the chain alone, and the run's suites share
 * one Temporal, so a later suite following the same chain would otherwise find them running on a queue nobody polls.
 */
async function stopFollowing(temporal: Client, taskQueue: string): Promise<void> {
  await endChainFollowers(temporal, followed.get(taskQueue) ?? [], 'the suite ended');
  followed.delete(taskQueue);
}

/** Terminates the chain-indexer workflows of these chains, every stream's, where they still run. */
export async function endChainFollowers(temporal: Client, chainIds: number[], reason: string): Promise<void> {
  const ids = chainIds.flatMap((chainId) => CHAIN_STREAMS.map((stream) => followChainWorkflowId(chainId, stream)));
  await Promise.all(
    ids.map((id) =>
      temporal.workflow
        .getHandle(id)
        .terminate(reason)
        .catch(() => undefined),
    ),
  );
}

export async function call(
  api: Api,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': api.apiKey, ...opts.headers },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const ingest = (api: Api, events: unknown[]) =>
  call(api, 'POST', '/indexer/events', { body: { events }, headers: { 'x-indexer-key': api.indexerKey } });

/** Funds `account` with `locked` USDC in this allocator's lock on Base (see `lockedSnapshot` for `extra`). */
export async function fundLocked(api: Api, account: string, locked: string, extra: Record<string, unknown> = {}) {
  expect((await ingest(api, [lockedSnapshot(account, locked, extra)])).status).toBe(200);
}

/** A fresh EOA funded with `locked` USDC, as `fundLocked` funds it. */
export async function fundedAccount(api: Api, locked = '5000000', extra: Record<string, unknown> = {}) {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundLocked(api, account.address, locked, extra);
  return account;
}

/** Waits for `probe` to return a value (not undefined) and returns it; fails after `ms` naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  let value: T | undefined;
  await waitFor(what, async () => (value = await probe()) !== undefined, ms);
  return value!;
}

/**
 * An API process of its own on a free port, answering `probe` (`/ready` unless told). A port found free may be taken
 * before the process binds it: the process then exits (whatever else answers on that port is not it), and it is
 * started again on another port.
 */
export async function spawnApi(
  env: Record<string, string>,
  probe = '/ready',
): Promise<{ child: ChildProcess; url: string; port: number }> {
  return onFreePorts(async (port) => {
    const child = spawnEntry('api', { ...env, PORT: String(port), HOST: '127.0.0.1' }, 'ignore');
    const url = `http://127.0.0.1:${port}`;
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    for (const deadline = Date.now() + 60_000; ;) {
      if (exited()) throw new Error(`the API process exited on port ${port}`);
      if ((await fetch(`${url}${probe}`).catch(() => undefined))?.ok && !exited()) return { child, url, port };
      if (Date.now() > deadline) {
        await stopProcess(child, 'SIGKILL');
        throw new Error(`the API process did not answer ${probe} on port ${port} within 60 s`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  });
}
