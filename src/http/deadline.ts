import type { Context, Middleware, Next } from 'koa';
import { isGrpcServiceError, ServiceError } from '@temporalio/client';
import { DomainError } from '../errors';
import { ApiError, STATUS } from './errors';
import type { Services } from './services';

/** Seconds a client waits before retrying a 503 (docs/operations.md, Outages: the 503 contract). */
export const RETRY_AFTER_SECONDS = 5;

export type DeadlineClass = 'request' | 'external';

/**
 * Routes that may wait on something outside PostgreSQL and Temporal: a chain's RPC (live gas prices for quotes,
 * ERC-1271/6492 smart-account signatures) or the identity provider. Every other route is a `request` route.
 */
const EXTERNAL: RegExp[] = [
  /^\/(quotes|intent-operations|intents|intents\/(route|cost|split|splits))$/,
  /^\/legacy\/(bundles|accounts\/[^/]+\/bundles\/(path|cost))$/,
  /^\/deposit-processor\/(setup|register-managed|account\/[^/]+\/session|safe\/withdraw|compliance\/verification)$/,
];

export function deadlineClass(method: string, path: string): DeadlineClass {
  return method === 'POST' && EXTERNAL.some((r) => r.test(path)) ? 'external' : 'request';
}

/** The one 503 every host renders in its own error body, with `Retry-After`. */
export const serviceUnavailable = (message = 'Service Unavailable') =>
  new ApiError(STATUS.SERVICE_UNAVAILABLE, message, {
    code: 'SERVICE_UNAVAILABLE',
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });

/**
 * The client did not send its request body within the deadline: its delay (a stalled upload, a slow link), not an
 * outage of ours, so it is 408 and counted apart. The connection is closed: the rest of the body may never come.
 */
export const requestTimeout = (seconds: number) =>
  new ApiError(STATUS.REQUEST_TIMEOUT, `The request body did not arrive within ${seconds}s`, {
    code: 'REQUEST_TIMEOUT',
    headers: { connection: 'close' },
  });

/**
 * Runs `read` (receiving the request body from the client) marked as such, so that a deadline reached meanwhile is
 * answered as the client's delay (requestTimeout) rather than ours.
 */
export async function receivingBody<T>(ctx: Context, read: () => Promise<T>): Promise<T> {
  ctx.state.receivingBody = true;
  try {
    return await read();
  } finally {
    ctx.state.receivingBody = false;
  }
}

/** PostgreSQL codes of a server that cannot serve now: statement or lock timeout, shutting down, starting up, too many connections. */
const PG_UNAVAILABLE = new Set([
  '57014',
  '55P03',
  '57P01',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
]);
/** node-postgres' own client-side timeouts (query_timeout; pool acquire) and a connection lost mid-query. */
const PG_CLIENT_TIMEOUT = /Query read timeout|timeout exceeded when trying to connect|Connection terminated/;

/** Whether an error means PostgreSQL or Temporal could not serve in time (as opposed to a fault of ours). */
export function isDependencyFailure(err: unknown): boolean {
  if (err instanceof ServiceError || isGrpcServiceError(err)) return true;
  const e = err as
    { code?: unknown; message?: unknown; driverError?: { code?: unknown; message?: unknown } } | undefined;
  if (PG_UNAVAILABLE.has(String(e?.code ?? e?.driverError?.code))) return true;
  return PG_CLIENT_TIMEOUT.test(String(e?.driverError?.message ?? e?.message ?? ''));
}

/**
 * Every request is answered within the deadline of its class (REQUEST_DEADLINE_SECONDS, EXTERNAL_DEADLINE_SECONDS):
 * past it, or when PostgreSQL or Temporal fails it, the answer is 503 with Retry-After, unless the request was still
 * receiving its body from the client then (408, see requestTimeout). A handler still running at
 * its deadline finishes on its own: its transaction either commits (and the outbox performs what it queued) or
 * rolls back; PostgreSQL's statement_timeout and the client's query_timeout (src/db/data-source.ts) bound it.
 */
export function deadline(services: Services): Middleware {
  const { requestSeconds, externalSeconds } = services.config.deadlines;
  return async (ctx: Context, next: Next) => {
    const seconds = deadlineClass(ctx.method, ctx.path) === 'external' ? externalSeconds : requestSeconds;
    let expired = false;
    let timer: NodeJS.Timeout | undefined;
    const handled = next().catch((err) => {
      if (expired) services.logger.warn({ traceId: ctx.state.traceId, err }, 'request failed after its deadline');
      throw err;
    });
    const deadlineReached = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        handled.catch(() => undefined); // logged above; nobody awaits it any more
        const where = { traceId: ctx.state.traceId, method: ctx.method, path: ctx.path, seconds };
        if (ctx.state.receivingBody) {
          services.metrics.clientTimeouts.inc();
          services.logger.warn(where, 'request deadline reached while the client was still sending its body');
          return reject(requestTimeout(seconds));
        }
        services.logger.error(where, 'request deadline reached');
        reject(serviceUnavailable(`No answer within ${seconds}s: a dependency is unavailable, retry later`));
      }, seconds * 1000);
    });
    try {
      await Promise.race([handled, deadlineReached]);
    } catch (err) {
      if (err instanceof ApiError || err instanceof DomainError || !isDependencyFailure(err)) throw err;
      services.logger.error({ traceId: ctx.state.traceId, err }, 'dependency unavailable');
      throw serviceUnavailable();
    } finally {
      clearTimeout(timer);
    }
  };
}
