import path from 'node:path';
import { startTracing } from './start';

/**
 * Imported first by each entry point (src/main/api.ts, worker.ts), before anything loads `http` or `pg`, which
 * tracing instruments as they load. The entry's file name names the service (`intent-orchestrator-api`, `-worker`).
 */
startTracing(path.parse(process.argv[1] ?? 'node').name);
