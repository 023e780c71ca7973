import path from 'node:path';
import { startTemporalDevServer } from '../dev/processes';
import { runStack } from '../dev/stack';

/** `npm start`: Temporal dev server (+ Web UI), PostgreSQL, migrations, one worker and one API, all on loopback. */
runStack({
  name: 'start',
  replicas: 1,
  startTemporal: async (config) => {
    const server = await startTemporalDevServer({
      port: config.temporalPort,
      uiPort: config.temporalUiPort,
      dbFile: path.join(config.dataDir, 'temporal', 'dev.sqlite'),
      namespace: config.temporalNamespace,
    });
    return {
      ...server,
      summary: [
        `  Temporal            ${server.address}`,
        `  Temporal Web UI     http://127.0.0.1:${config.temporalUiPort}`,
      ],
    };
  },
});
