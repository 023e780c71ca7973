import '../tracing/register'; // first: tracing instruments http and pg as they load
import { openDatabase } from '../db/data-source';
import { createOutbox } from '../intents/outbox-owners';
import { ensureSweeperSchedule } from '../outbox/sweeper';
import { ensurePruneSchedule } from '../retention/schedule';
import { createTemporalClient } from '../temporal-sdk/client';
import { createLogger } from '../logger';
import { exitOnError, loadRuntime } from '../runtime';
import { createWorkers, installRuntime } from '../worker/workers';
import { depositDeps } from '../deposits/deps';
import { followChains } from '../chain-indexer/start';
import { stopTracing } from '../tracing/start';

/** One stateless worker process: polls the task queue, runs workflows and activities. Scale by running more. */
async function main() {
  const rt = loadRuntime();
  const logger = createLogger(rt.config.logLevel, 'worker');
  installRuntime(rt.config.logLevel === 'info' ? 'warn' : rt.config.logLevel);
  // Webhook attempts record themselves in short transactions that mostly wait on commits: more than the default 10.
  const db = await openDatabase(rt.databaseUrl, 20, { acquireTimeoutMs: rt.config.dbAcquireTimeoutMs });
  const client = createTemporalClient(rt.temporalAddress, rt.config.temporalNamespace);
  const { workers, connection, leaseLoop, folder } = await createWorkers({
    address: rt.temporalAddress,
    namespace: rt.config.temporalNamespace,
    taskQueue: rt.config.taskQueue,
    deps: {
      db,
      config: rt.config,
      outbox: createOutbox(db, client, rt.config),
      deposits: depositDeps(rt, db),
      rpc: rt.rpc,
      log: logger,
    },
  });
  await ensureSweeperSchedule(
    client,
    rt.config.taskQueue,
    rt.config.outbox.sweepSeconds,
    rt.config.outbox.graceSeconds,
  );
  await ensurePruneSchedule(client, rt.config.taskQueue, rt.config.retention.pruneSeconds);
  await followChains(client, rt.config.taskQueue, rt.config.chainIndexer);
  logger.info({ taskQueue: rt.config.taskQueue, temporal: rt.temporalAddress }, 'worker running');
  leaseLoop.start();
  folder.start();
  // Worker.run() installs SIGINT/SIGTERM handlers itself and drains in-flight tasks before it resolves.
  await Promise.all(workers.map((w) => w.run()));
  await Promise.all([leaseLoop.stop(), folder.stop()]);
  await connection.close();
  await client.connection.close();
  await db.destroy();
  await stopTracing();
}

main().catch(exitOnError);
