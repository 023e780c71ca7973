import '../tracing/register'; // first: tracing instruments http and pg as they load
import { once } from 'node:events';
import { openDatabase } from '../db/data-source';
import { createApp } from '../api/app';
import { createServices, temporalCallTimeoutMs } from '../api/services';
import { createLogger } from '../logger';
import { exitOnError, loadRuntime } from '../runtime';
import { createTemporalClient } from '../temporal-sdk/client';
import { stopTracing } from '../tracing/start';

/** One stateless API process; run as many as needed against one Postgres and one Temporal cluster. */
async function main() {
  const rt = loadRuntime();
  const logger = createLogger(rt.config.logLevel, 'api');
  const db = await openDatabase(rt.databaseUrl, undefined, {
    acquireTimeoutMs: rt.config.dbAcquireTimeoutMs,
    queryTimeoutMs: rt.config.deadlines.requestSeconds * 1000,
  });
  const temporal = createTemporalClient(
    rt.temporalAddress,
    rt.config.temporalNamespace,
    temporalCallTimeoutMs(rt.config),
  );
  const services = createServices(rt, db, temporal, logger);
  const app = createApp(services);
  const server = app.listen(rt.config.port, rt.config.host);
  await once(server, 'listening');
  logger.info(
    { port: rt.config.port, allocatorAddress: rt.allocatorAddress, orchestratorAddress: rt.orchestratorAddress },
    'api listening',
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Open order-feed streams never end on their own.
    services.relayerFeeds.endAll();
    server.close();
    await once(server, 'close');
    await services.outbox.drain();
    await temporal.connection.close();
    await services.rateLimits.close();
    await db.destroy();
    await stopTracing();
    process.exit(0);
  };
  // `on`, not `once`: tsx exits the process itself when a signal finds no listener left.
  process.on('SIGINT', () => void stop().catch(exitOnError));
  process.on('SIGTERM', () => void stop().catch(exitOnError));
}

main().catch(exitOnError);
