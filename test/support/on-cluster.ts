import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase } from '../../src/db/provision';
import {
  clusterBasePort,
  projectRoot,
  startTemporalCluster,
  stopProcess,
  type RunningTemporal,
} from '../../src/dev/processes';
import { onFreePorts, TEST_DYNAMIC_CONFIG } from './global-setup';

/**
 * `npm run test:cluster -- <jest arguments>`: runs suites on a Temporal cluster on PostgreSQL (temporal/start-cluster.sh:
 * separate frontend, two history, matching and worker processes) instead of the dev server. The cluster gets fresh
 * databases on TEMPORAL_DB_URL's server (else DATABASE_URL's, else the local one), dropped afterwards, and the
 * settings the suites expect; jest's global setup uses it through TEMPORAL_ADDRESS.
 */
async function main(): Promise<number> {
  const databaseUrl = process.env.TEMPORAL_DB_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432';
  const databaseName = `temporal_test_${randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-cluster-'));
  let cluster: RunningTemporal | undefined;
  try {
    cluster = await onFreePorts(
      (port) =>
        startTemporalCluster({
          port,
          namespace: 'default',
          dir,
          databaseUrl,
          databaseName,
          logLevel: 'error',
          dynamicConfig: TEST_DYNAMIC_CONFIG,
        }),
      1,
      3,
      clusterBasePort,
    );
    const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), '--runInBand', ...process.argv.slice(2)], {
      cwd: projectRoot,
      // The cluster's folder: test/cluster's suites kill and restart its services through start-cluster.sh.
      env: { ...process.env, TEMPORAL_ADDRESS: cluster.address, TEMPORAL_CLUSTER_DIR: dir },
      stdio: 'inherit',
    });
    const [code] = (await once(jest, 'exit')) as [number | null];
    return code ?? 1;
  } finally {
    if (cluster) await stopProcess(cluster.process);
    for (const database of [databaseName, `${databaseName}_visibility`]) await dropDatabase(databaseUrl, database);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
