import path from 'node:path';
import { startTemporalCluster } from '../dev/processes';
import { runStack } from '../dev/stack';

/**
 * `npm run cluster`: what `npm start` runs, on a Temporal cluster shaped like production (frontend, two history,
 * matching and worker services as separate processes, on PostgreSQL) and with two API and two worker processes.
 */
runStack({
  name: 'cluster',
  replicas: 2,
  startTemporal: async (config, databaseUrl) => {
    const dir = path.join(config.dataDir, 'temporal-cluster');
    // Temporal's own databases go on the app's PostgreSQL server unless TEMPORAL_DB_URL names another.
    const cluster = await startTemporalCluster({
      port: config.temporalPort,
      namespace: config.temporalNamespace,
      dir,
      databaseUrl: process.env.TEMPORAL_DB_URL || databaseUrl,
    });
    return {
      ...cluster,
      summary: [
        `  Temporal cluster    ${cluster.address}   (services on ports ${config.temporalPort}-${config.temporalPort + 4}, logs in ${path.join(dir, 'logs')})`,
      ],
    };
  },
});
