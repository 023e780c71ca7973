import { privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../db/data-source';
import { createLogger } from '../logger';
import { exitOnError, loadRuntime } from '../runtime';
import { createWorker, installRuntime } from '../worker/worker';

/** One stateless worker process: polls the task queue, runs workflows and activities. Scale by running more. */
async function main() {
  const rt = loadRuntime();
  const logger = createLogger(rt.config.logLevel, 'worker');
  installRuntime(rt.config.logLevel === 'info' ? 'warn' : rt.config.logLevel);
  const db = await openDatabase(rt.databaseUrl);
  const { worker, connection } = await createWorker({
    address: rt.temporalAddress,
    namespace: rt.config.temporalNamespace,
    taskQueue: rt.config.taskQueue,
    deps: { db, config: rt.config, registry: rt.registry, defaultLockTag: rt.defaultLockTag, orchestrator: privateKeyToAccount(rt.secrets.orchestratorPrivateKey), allocator: privateKeyToAccount(rt.secrets.allocatorPrivateKey) },
  });
  logger.info({ taskQueue: rt.config.taskQueue, temporal: rt.temporalAddress }, 'worker running');
  // Worker.run() installs SIGINT/SIGTERM handlers itself and drains in-flight tasks before it resolves.
  await worker.run();
  await connection.close();
  await db.destroy();
}

main().catch(exitOnError);
