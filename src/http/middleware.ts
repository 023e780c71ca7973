import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { isGrpcServiceError } from '@temporalio/client';
import { DomainError } from '../errors';
import { ApiError, unauthorized } from './errors';
import { type ErrorRenderer, type Failure, headersOf, statusOf } from './error-bodies';
import type { Services } from './services';
import { isPoolTimeout } from '../db/data-source';
import { clientAddress, isTrusted } from './client-address';
import { activeTraceId, nameServerSpan } from '../tracing/context';

export const TRACE_HEADER = 'x-trace-id';

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is absent or another scheme. */
export const bearerToken = (authorization: string): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];

/**
 * Trace id, one log line per request, and the request metrics. With tracing on (docs/tracing.md) the trace id is the
 * request's OpenTelemetry trace (a caller's `traceparent` continues its own); else the caller's when well-formed.
 */
export function observe(services: Services): Middleware {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get(TRACE_HEADER);
    const traceId =
      activeTraceId() ?? (/^[0-9a-zA-Z-]{8,64}$/.test(incoming) ? incoming : randomBytes(16).toString('hex'));
    ctx.state.traceId = traceId;
    ctx.set(TRACE_HEADER, traceId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route: string = ctx._matchedRoute ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      nameServerSpan(ctx.method, route);
      services.metrics.requests.inc({ method: ctx.method, route, status: String(ctx.status) });
      services.metrics.latency.observe({ method: ctx.method, route }, seconds);
      services.logger.info(
        { traceId, method: ctx.method, path: ctx.path, route, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  };
}

/**
 * `ctx.ip` is the client's address as clientAddress finds it (TRUSTED_PROXIES, none by default: then it is the
 * peer's, whatever the request's headers say). A request from anyone but a trusted proxy also loses its
 * X-Forwarded-Proto and -Host, so neither decides the links the API builds from its own origin.
 */
export function trustedClientAddress(services: Services): Middleware {
  return async (ctx: Context, next: Next) => {
    const trusted = services.config.trustedProxies;
    const peer = ctx.req.socket.remoteAddress ?? '';
    ctx.request.ip = clientAddress(peer, ctx.get('x-forwarded-for'), trusted);
    if (!isTrusted(peer, trusted)) {
      delete ctx.req.headers['x-forwarded-proto'];
      delete ctx.req.headers['x-forwarded-host'];
    }
    await next();
  };
}

/**
 * Used on a host's router (src/api/app.ts), so it runs first for every request one of the host's routes takes:
 * the error boundary renders that request's failures with the host's renderer.
 */
export const rendersErrors =
  (render: ErrorRenderer): Middleware =>
  async (ctx, next) => {
    ctx.state.renderErrors = render;
    await next();
  };

/**
 * The single error boundary: every failure becomes a documented JSON body; stack traces stay in the logs. The body
 * is the host's: the renderer its routes were mounted with (rendersErrors), or `unrouted`'s for a request no route
 * takes (an unknown path or method).
 */
export function errors(services: Services, unrouted: (ctx: Context) => ErrorRenderer): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined)
        throw new ApiError(404, `Route ${ctx.method} ${ctx.path} not found`);
      if (ctx.status === 405 && ctx.body === undefined)
        throw new ApiError(405, `Method ${ctx.method} not allowed on ${ctx.path}`);
    } catch (raw) {
      const err = withheld(toFailure(raw, services, ctx), services, ctx);
      const traceId = ctx.state.traceId as string;
      ctx.status = statusOf(err);
      for (const [k, v] of Object.entries(headersOf(err))) ctx.set(k, v);
      const render = (ctx.state.renderErrors as ErrorRenderer | undefined) ?? unrouted(ctx);
      ctx.body = render(err, traceId, ctx);
    } finally {
      // Compliance answers carry customer state and session bearers: no cache may keep one, error or not.
      if (ctx.path.startsWith('/deposit-processor/compliance/')) ctx.set('cache-control', 'no-store');
    }
  };
}

/** URLs, IP addresses and host:port pairs: where our dependencies live, which a 5xx message may carry from below. */
const INTERNAL =
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'()]+|\[[0-9a-f:.]+\](?::\d+)?|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\b(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{1,5}\b/gi;

/** A 5xx message naming an internal address goes to the logs (with the trace id) and reaches the client without it. */
function withheld(err: Failure, services: Services, ctx: Context): Failure {
  if (err instanceof DomainError && err.detail.operatorHint)
    services.logger.warn({ traceId: ctx.state.traceId, hint: err.detail.operatorHint }, err.message);
  if (statusOf(err) < 500 || err.message.search(INTERNAL) < 0) return err;
  services.logger.error(
    { traceId: ctx.state.traceId, message: err.message },
    'internal detail withheld from the client',
  );
  const message = err.message.replace(INTERNAL, '<internal>');
  return err instanceof DomainError
    ? new DomainError(err.code, message, { ...err.detail, context: undefined })
    : new ApiError(err.status, message, { ...err.extra, errors: undefined });
}

function toFailure(raw: unknown, services: Services, ctx: Context): Failure {
  if (raw instanceof DomainError || raw instanceof ApiError) return raw;
  const e = raw as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e?.status ?? e?.statusCode;
  if (status && status >= 400 && status < 500) {
    // Body-parser failures keep their type as the message: the published client maps `entity.parse.failed` etc.
    const type = e.type ?? (raw instanceof SyntaxError ? 'entity.parse.failed' : undefined);
    if (type) return new ApiError(status, type, { errors: [{ message: type, context: { detail: e.message } }] });
    return new ApiError(status, e.expose && e.message ? e.message : 'Bad Request');
  }
  // Temporal or Postgres out of reach, or no pooled connection free in time: a retryable 503, which the published
  // client backs off on.
  if (
    isGrpcServiceError(raw) ||
    isPoolTimeout(raw) ||
    ['ECONNREFUSED', 'ECONNRESET', '57P01', '53300'].includes(String((raw as { code?: unknown })?.code))
  ) {
    services.logger.error({ traceId: ctx.state.traceId, err: raw }, 'dependency unavailable');
    return new ApiError(503, 'Service Unavailable', { headers: { 'retry-after': '5' } });
  }
  services.logger.error({ traceId: ctx.state.traceId, err: raw }, 'unhandled error');
  return new ApiError(500, 'Internal Server Error');
}

/**
 * API-key routes: the key resolves to a project, whose quota is then charged (docs/api.md, Rate limits). Every answer
 * carries RateLimit-* headers; over quota is 429 with Retry-After, which the published client turns into
 * RateLimitedError.
 */
export function apiKeyAuth(services: Services): Middleware {
  const defaults = services.config.rateLimit;
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('x-api-key');
    if (!key) throw unauthorized('Authentication is required');
    const project = await services.apiKeys.resolve(key);
    if (!project) throw unauthorized('Invalid API key');
    ctx.state.projectId = project.projectId;
    const verdict = await services.rateLimits.consume(project.projectId, {
      rps: project.quota.rps ?? defaults.rps,
      burst: project.quota.burst ?? defaults.burst,
    });
    ctx.set('ratelimit-limit', String(verdict.limit));
    ctx.set('ratelimit-remaining', String(verdict.remaining));
    ctx.set('ratelimit-reset', String(verdict.resetSeconds));
    if (!verdict.allowed)
      throw new ApiError(429, 'Too Many Requests', { headers: { 'retry-after': String(verdict.resetSeconds) } });
    await next();
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * A relayer's key (x-relayer-key), issued by the operator: the order feed and the claim authorizations of the intents
 * it may fill, and nothing of a project. Counted against the default quota under the relayer's own name.
 */
export function relayerAuth(services: Services): Middleware {
  const defaults = services.config.rateLimit;
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('x-relayer-key');
    if (!key) throw unauthorized('Authentication is required');
    const relayer = await services.relayerKeys.resolve(key);
    if (!relayer) throw unauthorized('Invalid relayer key');
    ctx.state.relayerId = relayer.id;
    const verdict = await services.rateLimits.consume(`relayer:${relayer.id}`, defaults);
    if (!verdict.allowed)
      throw new ApiError(429, 'Too Many Requests', { headers: { 'retry-after': String(verdict.resetSeconds) } });
    await next();
  };
}

export function indexerAuth(services: Services): Middleware {
  const expected = digest(services.indexerApiKey);
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('x-indexer-key');
    if (!key) throw unauthorized('Authentication is required');
    if (!timingSafeEqual(digest(key), expected)) throw unauthorized('Invalid indexer key');
    await next();
  };
}
