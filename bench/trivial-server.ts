/**
 * The HTTP baseline, in its own process like the API: the API's authentication middleware (same key store, same
 * DB) in front of a route that does nothing. Started by bench/stack.ts with the API's environment and PORT.
 */
import Koa from 'koa';
import { openDatabase } from '../src/db/data-source';
import { apiKeyAuth } from '../src/http/middleware';
import { createServices } from '../src/api/services';
import { createLogger } from '../src/logger';
import { exitOnError, loadRuntime } from '../src/runtime';
import { createTemporalClient } from '../src/temporal-sdk/client';

async function main() {
  const rt = loadRuntime();
  const db = await openDatabase(rt.databaseUrl, 4);
  const services = createServices(
    rt,
    db,
    createTemporalClient(rt.temporalAddress, rt.config.temporalNamespace),
    createLogger('silent', 'bench'),
  );
  const app = new Koa();
  app.silent = true; // the readiness probe's 401 is expected
  const server = app
    .use(apiKeyAuth(services))
    .use((ctx) => {
      ctx.body = { ok: true };
    })
    .listen(rt.config.port, '127.0.0.1');
  server.keepAliveTimeout = 65_000; // as the API's
  server.headersTimeout = 66_000;
}

main().catch(exitOnError);
