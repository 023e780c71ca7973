import Koa, { Middleware } from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { indexerRoutes } from '../indexer/routes';
import { intentRoutes } from '../intents/routes';
import { blancIntentRoutes } from '../intents/blanc-routes';
import { bundleRoutes } from '../bundles/routes';
import { withdrawalRoutes } from '../withdrawals/routes';
import { opsRoutes } from '../ops/routes';
import { currentPortfolioRoutes, legacyPortfolioRoute } from '../portfolio/routes';
import { webhookRoutes } from '../webhooks/routes';
import { complianceRoutes } from '../compliance/routes';
import { accountRoutes } from '../deposits/account-routes';
import { depositRoutes } from '../deposits/routes';
import { analyticsRoutes, ingestCors } from '../analytics/routes';
import { sessionAuth } from '../compliance/session-auth';
import { Host, openApiDocument } from './openapi';
import { apiKeyAuth, errors, indexerAuth, observe } from './middleware';
import { deadline } from './deadline';
import { apiVersion, SUPPORTED_VERSIONS, type ApiVersion } from '../versions/versions';
import { ApiError } from './errors';
import { deprecationNotice } from '../versions/deprecation';
import { versionRoutes } from '../versions/routes';
import { Auth, mount } from './route';
import type { Services } from './services';

/**
 * Three hosts in one process: the current-generation host at `/`, the deposit processor at `/deposit-processor`,
 * and the legacy bundle host under `/legacy` (a client configured with `<base>/legacy` sees its routes at its root).
 */
export function hosts(): Host[] {
  return [
    { prefix: '', name: 'current', routes: [...opsRoutes, ...versionRoutes, ...currentPortfolioRoutes, ...intentRoutes, ...blancIntentRoutes, ...withdrawalRoutes, ...indexerRoutes, ...analyticsRoutes] },
    { prefix: '/legacy', name: 'legacy', routes: [legacyPortfolioRoute, ...bundleRoutes] },
    { prefix: '/deposit-processor', name: 'deposit-processor', routes: [...webhookRoutes, ...complianceRoutes, ...accountRoutes, ...depositRoutes] },
  ];
}

export function createApp(services: Services): Koa {
  const app = new Koa({ proxy: true });
  const auth: Record<Auth, Middleware> = {
    apiKey: apiKeyAuth(services),
    indexerKey: indexerAuth(services),
    session: sessionAuth(services),
    none: (_ctx, next) => next(),
  };
  const all = hosts();
  const openapi = Object.fromEntries(SUPPORTED_VERSIONS.map((v) => [v, openApiDocument(all, services.registry.version, v)]));

  app.use(observe(services));
  app.use(errors(services));
  app.use(ingestCors());
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: services.config.bodyLimit, encoding: 'utf-8' }));
  app.use(deadline(services));

  for (const host of all) {
    const router = new Router({ prefix: host.prefix || undefined });
    // The legacy host predates dated versions (its client sends none); the others validate x-api-version.
    mount(router, host.routes, services, auth, host.name === 'legacy' ? [] : [apiVersion(), deprecationNotice(services.config.versions)]);
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
        if (!doc) throw new ApiError(404, `No OpenAPI document for version ${ctx.params.version}; served: ${SUPPORTED_VERSIONS.join(', ')}`);
        ctx.body = doc;
      });
    }
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
