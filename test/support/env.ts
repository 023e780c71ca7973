import fs from 'node:fs';

/** What global setup provisioned, handed to the suites through a file named in the environment. */
export interface TestEnv {
  databaseUrl: string;
  adminUrl: string;
  database: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  dataDir: string;
  /** pids of every worker process the run started (suites may kill and replace workers) */
  workerPidFile: string;
  env: Record<string, string>;
}

/** This jest worker's lane (test/support/global-setup.ts): its database, namespace, task queue and worker. */
export function readTestEnv(): TestEnv {
  const file = process.env.ORCHESTRATOR_TEST_STATE;
  if (!file) throw new Error('integration suites run through jest global setup (npm test)');
  const lanes: TestEnv[] = JSON.parse(fs.readFileSync(file, 'utf8'));
  return lanes[(Number(process.env.JEST_WORKER_ID ?? '1') - 1) % lanes.length];
}
