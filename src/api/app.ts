import http, { type Server } from 'node:http';
import { relayerRoutes } from '../relayers/routes';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Koa, { type Context, Middleware } from 'koa';
import Router from '@koa/router';
import { indexerRoutes } from '../ingestion/routes';
import { intentRoutes } from '../intents/routes';
import { blancIntentRoutes } from '../intents/blanc-routes';
import { bundleRoutes } from '../bundles/routes';
import { withdrawalRoutes } from '../withdrawals/routes';
import { opsRoutes } from '../ops/routes';
import { currentPortfolioRoutes, legacyPortfolioRoute } from '../portfolio/routes';
import { sponsorshipRoutes } from '../projects/sponsorship-routes';
import { webhookRoutes } from '../webhooks/routes';
import { complianceRoutes } from '../compliance/routes';
import { accountRoutes } from '../deposits/account-routes';
import { depositRoutes } from '../deposits/routes';
import { analyticsRoutes, ingestCors, ingestTokenRoute } from '../analytics/routes';
import { sessionAuth } from '../compliance/session-auth';
import { Host, openApiDocument } from '../http/openapi';
import {
  apiKeyAuth,
  errors,
  indexerAuth,
  relayerAuth,
  observe,
  rendersErrors,
  trustedClientAddress,
} from '../http/middleware';
import { currentHostErrors, depositProcessorErrors, type ErrorRenderer, legacyHostErrors } from '../http/error-bodies';
import { deadline } from '../http/deadline';
import { apiVersion, SUPPORTED_VERSIONS, type ApiVersion } from '../http/versions';
import { ApiError } from '../http/errors';
import { LIMITS } from '../http/limits';
import { deprecationNotice } from '../versions/deprecation';
import { versionRoutes } from '../versions/routes';
import { Auth, mount } from '../http/route';
import type { Services } from '../http/services';

/**
 * Three hosts in one process: the current-generation host at `/`, the deposit processor at `/deposit-processor`,
 * and the legacy bundle host under `/legacy` (a client configured with `<base>/legacy` sees its routes at its root).
 * Each renders its failures in its own error body (`errors`).
 */
export function hosts(): MountedHost[] {
  return [
    {
      prefix: '',
      name: 'current',
      errors: currentHostErrors,
      routes: [
        ...opsRoutes,
        ...versionRoutes,
        ...currentPortfolioRoutes,
        ...intentRoutes,
        ...blancIntentRoutes,
        ...withdrawalRoutes,
        ...indexerRoutes,
        ...analyticsRoutes,
        ...sponsorshipRoutes,
        ...relayerRoutes,
      ],
    },
    { prefix: '/legacy', name: 'legacy', errors: legacyHostErrors, routes: [legacyPortfolioRoute, ...bundleRoutes] },
    {
      prefix: '/deposit-processor',
      name: 'deposit-processor',
      errors: depositProcessorErrors,
      routes: [...webhookRoutes, ...complianceRoutes, ...accountRoutes, ...depositRoutes, ingestTokenRoute],
    },
  ];
}

export function createApp(services: Services): Koa {
  // Koa reads X-Forwarded-Proto and -Host only behind a configured proxy; trustedClientAddress decides ctx.ip.
  const app = new Koa({ proxy: services.config.trustedProxies.length > 0 });
  const auth: Record<Auth, Middleware> = {
    apiKey: apiKeyAuth(services),
    indexerKey: indexerAuth(services),
    relayerKey: relayerAuth(services),
    session: sessionAuth(services),
    none: (_ctx, next) => next(),
  };
  const all = hosts();
  const openapi = Object.fromEntries(
    SUPPORTED_VERSIONS.map((v) => [v, openApiDocument(all, services.registry.version, v)]),
  );

  app.listen = ((...args: unknown[]) => {
    const handle = app.callback();
    // Koa answers a failed request itself (ctx.onerror): the promise of its handler never rejects.
    const server = http.createServer({ maxHeaderSize: LIMITS.headerBytes }, (req, res) => void handle(req, res));
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(services, err, socket));
    // Idle keep-alive connections outlive the clients' and proxies' own idle timeouts (60 s is common), so a client
    // never sends a request on a socket the server is closing at that moment.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    return server.listen(...(args as Parameters<Server['listen']>));
  }) as Koa['listen'];

  // A client gone mid-stream (an order-feed stream closed) is no failure of ours; any other is reported as Koa does.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') app.onerror(err);
  });
  app.use(trustedClientAddress(services));
  app.use(observe(services));
  app.use(errors(services, unroutedErrors(all)));
  app.use(ingestCors());
  app.use(deadline(services));

  for (const host of all) {
    const router = new Router({ prefix: host.prefix || undefined });
    router.use(rendersErrors(host.errors));
    // The legacy host predates dated versions (its client sends none); the others validate x-api-version.
    mount(
      router,
      host.routes,
      services,
      auth,
      host.name === 'legacy' ? [] : [apiVersion(), deprecationNotice(services.config.versions)],
    );
    if (host.name === 'current') {
      router.get('/metrics', async (ctx) => {
        ctx.type = services.metrics.registry.contentType;
        ctx.body = await services.metrics.registry.metrics();
      });
      // The document of the version the request names (x-api-version, alps when absent), or of the one in the path.
      router.get('/openapi.json', apiVersion(), (ctx) => {
        ctx.body = openapi[ctx.state.apiVersion as ApiVersion];
      });
      router.get('/openapi/:version.json', (ctx) => {
        const doc = openapi[ctx.params.version];
        if (!doc)
          throw new ApiError(
            404,
            `No OpenAPI document for version ${ctx.params.version}; served: ${SUPPORTED_VERSIONS.join(', ')}`,
          );
        ctx.body = doc;
      });
    }
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}

/** A host as createApp mounts it: its routes, and the renderer of its error body. */
export type MountedHost = Host & { errors: ErrorRenderer };

/**
 * A request none of the routes takes (an unknown path or method) is answered by the host mounted where it was sent:
 * the one with the longest prefix the path is under.
 */
export const unroutedErrors =
  (all: MountedHost[]) =>
  (ctx: Context): ErrorRenderer => {
    const under = all.filter((h) => ctx.path === h.prefix || ctx.path.startsWith(`${h.prefix}/`));
    return under.reduce((a, b) => (b.prefix.length > a.prefix.length ? b : a)).errors;
  };

/**
 * A request Node's parser refuses before any middleware runs (headers over LIMITS.headerBytes, a NUL or another
 * forbidden byte in a header, a malformed request line) still gets a JSON body. Its host is unknown, so the body
 * carries the fields of every host's error shape.
 */
function answerClientError(services: Services, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const [status, reason, code, message] = tooLarge
    ? [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', `Request headers over ${LIMITS.headerBytes} bytes`]
    : [400, 'Bad Request', 'VALIDATION_ERROR', 'Malformed request (request line or headers)'];
  const traceId = randomBytes(16).toString('hex');
  services.logger.warn({ traceId, code: err.code }, 'request refused by the HTTP parser');
  const body = JSON.stringify({ code, message, error: message, errors: [{ message }], traceId });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-trace-id: ${traceId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
