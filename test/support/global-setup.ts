import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import {
  checkEmbeddedPostgresReachable,
  ensureDatabase,
  RunningPostgres,
  startEmbeddedPostgres,
  withDatabase,
} from '../../src/db/provision';
import { openDatabase } from '../../src/db/data-source';
import { spawnEntry, startTemporalDevServer, projectRoot } from '../../src/dev/processes';
import type { TestEnv } from './env';
import { TEST_SECRETS } from './secrets';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * A port found free is bound later by another process, and on a busy machine someone else may take it meanwhile:
 * a start that fails is tried again on fresh ports.
 */
export async function onFreePorts<T>(
  start: (...ports: number[]) => Promise<T>,
  count = 1,
  attempts = 3,
  pick: () => Promise<number> = freePort,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports = await Promise.all(Array.from({ length: count }, pick));
    try {
      return await start(...ports);
    } catch (err) {
      if (attempt === attempts) throw err;
    }
  }
}

/**
 * Lifecycles are told to continue as new after 150 history events (4,096 in production), and a run accepts 1,000
 * signals (10,000), so tests watch both with a few thousand signals rather than tens of thousands.
 */
export const TEST_DYNAMIC_CONFIG = [
  'limit.historyCount.suggestContinueAsNew=150',
  'history.maximumSignalsPerExecution=1000',
];

export interface Handles {
  /** The dev server the setup started; none when the suites run on TEMPORAL_ADDRESS's cluster. */
  temporal?: ChildProcess;
  workers: ChildProcess[];
  postgres?: RunningPostgres;
  lanes: TestEnv[];
  dataDir: string;
}

/**
 * A lane's Temporal namespace: the first is `default` (a cluster started elsewhere has that one), the others are
 * created with the dev server. Workflow ids are built from row ids and chain ids, so lanes never meet in one namespace.
 */
const laneNamespace = (lane: number) => (lane === 0 ? 'default' : `lane-${lane + 1}`);

/**
 * Provisions what `npm start` does, isolated: a Temporal dev server on a free port (in memory; or the cluster at
 * TEMPORAL_ADDRESS), PostgreSQL (DATABASE_URL's server, else the embedded one), the workflows bundled once, and one
 * lane per jest worker: a fresh database, a Temporal namespace, a task queue and a real worker process of its own.
 * Jest runs a worker's files one after another, so a suite shares its lane with none running at the same time
 * (test/support/env.ts picks the lane by JEST_WORKER_ID).
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-test-'));
  const embeddedDir = path.join(projectRoot, '.data', 'test-postgres');
  if (!process.env.DATABASE_URL) checkEmbeddedPostgresReachable(embeddedDir); // before anything starts
  // A cluster started elsewhere has one namespace: one lane (`npm run test:cluster` runs jest in band).
  const lanes = process.env.TEMPORAL_ADDRESS ? 1 : Math.max(1, globalConfig.maxWorkers);
  const namespaces = Array.from({ length: lanes }, (_, lane) => laneNamespace(lane));
  const bundling = bundleWorkflows(dataDir);
  // TEMPORAL_ADDRESS runs the suites on that cluster instead (`npm run test:cluster` starts one with TEST_DYNAMIC_CONFIG).
  const temporal = process.env.TEMPORAL_ADDRESS
    ? { address: process.env.TEMPORAL_ADDRESS, process: undefined }
    : await onFreePorts((port) =>
        startTemporalDevServer({
          port,
          namespace: namespaces[0],
          extraNamespaces: namespaces.slice(1),
          logLevel: 'error',
          dynamicConfig: TEST_DYNAMIC_CONFIG,
        }),
      );

  let postgres: RunningPostgres | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    postgres = await onFreePorts((port) => startEmbeddedPostgres(embeddedDir, port, () => undefined));
    adminUrl = postgres.url;
  }
  const workflowBundle = await bundling;
  const run = randomBytes(4).toString('hex');
  const envs = await Promise.all(
    namespaces.map(async (namespace, lane): Promise<TestEnv> => {
      const database = `orchestrator_test_${run}_${lane + 1}`;
      await ensureDatabase(adminUrl, database);
      const databaseUrl = withDatabase(adminUrl, database);
      const taskQueue = `test-${run}-${lane + 1}`;
      return {
        databaseUrl,
        adminUrl,
        database,
        temporalAddress: temporal.address,
        namespace,
        taskQueue,
        dataDir,
        workerPidFile: path.join(dataDir, `workers-${lane + 1}.pid`),
        env: {
          ...laneSettings(dataDir),
          DATABASE_URL: databaseUrl,
          TEMPORAL_ADDRESS: temporal.address,
          TEMPORAL_NAMESPACE: namespace,
          TEMPORAL_TASK_QUEUE: taskQueue,
          WORKFLOW_BUNDLE: workflowBundle,
        },
      };
    }),
  );
  await Promise.all(envs.map(async (env) => (await openDatabase(env.databaseUrl, 1)).destroy()));
  const workers = envs.map((env) => {
    const worker = spawnEntry('worker', env.env);
    fs.writeFileSync(env.workerPidFile, `${worker.pid}\n`);
    return worker;
  });
  const stateFile = path.join(dataDir, 'state.json');
  fs.writeFileSync(stateFile, JSON.stringify(envs));
  process.env.ORCHESTRATOR_TEST_STATE = stateFile;
  (globalThis as unknown as { __handles: Handles }).__handles = {
    temporal: temporal.process,
    workers,
    postgres,
    lanes: envs,
    dataDir,
  };
}

/** The workflows bundled once for every worker the run starts (WORKFLOW_BUNDLE), instead of once per worker start. */
async function bundleWorkflows(dataDir: string): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: new DefaultLogger('WARN'),
  });
  const file = path.join(dataDir, 'workflows-bundle.js');
  fs.writeFileSync(file, code);
  return file;
}

/** Every lane's settings: the product's, with the waits shortened so the suites watch them pass in seconds. */
function laneSettings(dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    WITHDRAWAL_EXPIRY_SECONDS: '4', // so a test can watch an unclaimed withdrawal expire
    OUTBOX_SWEEP_SECONDS: '1', // so a test can watch the sweeper take over what a killed API left
    OUTBOX_GRACE_SECONDS: '1',
    INTENT_FILL_GRACE_SECONDS: '1', // a fill may arrive this long after its deadline
    INTENT_CLAIM_WINDOW_SECONDS: '5', // so a test can watch an expired intent's reservation held until `expires`
    WEBHOOK_RETRY_DELAYS: '1,1,1', // four attempts, a second apart: retries and exhaustion in seconds
    WEBHOOK_TIMEOUT_SECONDS: '2', // a receiver that never answers fails an attempt after 2 s
    WEBHOOK_CLAIM_LEASE_SECONDS: '1', // a first attempt whose worker was killed is claimed again 3 s after its claim
    WEBHOOK_ENDPOINT_CONCURRENCY: '10', // a hanging receiver is saturated (and its attempts time out) with few events
    DEPOSIT_MIN_USD: '1',
    DEPOSIT_EXPECTED_SECONDS: '2', // deposit-delayed after 2 s without a bridge
    DEPOSIT_BRIDGE_EXPECTED_SECONDS: '3', // bridge-delayed after 3 s without a settled intent
    DEPOSIT_BRIDGE_TIMEOUT_SECONDS: '6', // a deposit's intent expires 6 s after its quote
    DEPOSIT_BRIDGE_RETRIES: '2',
    DEPOSIT_RETRY_SECONDS: '1',
    DEPOSIT_FUNDS_WAIT_SECONDS: '40',
    // Suites run on busy machines: a slow answer is not an outage here (test/integration/outages.test.ts sets 2 s).
    REQUEST_DEADLINE_SECONDS: '30',
    EXTERNAL_DEADLINE_SECONDS: '60',
    RATE_LIMIT_RPS: '100000', // suites call faster than a production default; the rate-limit test sets its own quotas
    ANALYTICS_UNATTRIBUTED_PER_ADDRESS: '10000000', // every suite sends from 127.0.0.1 without an origin; 22.5 sets its own limits
    ANALYTICS_UNATTRIBUTED_PER_ORIGIN: '10000000',
    LOG_LEVEL: 'error', // expected refusals (e.g. Insufficient balance) are logged as activity warnings
    ...TEST_SECRETS,
  };
}
