import type { Context } from 'koa';
import { DomainError } from '../errors';
import { envelope } from './envelope';
import { BLANC, requestedVersion } from './versions';
import { RETRY_AFTER_SECONDS } from './deadline';
import { ApiError, STATUS, VersionError } from './errors';

/** What the error boundary renders: a domain error, or one of the edge's own (validation, authentication, transport). */
export type Failure = DomainError | ApiError;

/** A host's error body for a failure; each host is mounted with its own (src/api/app.ts). */
export type ErrorRenderer = (err: Failure, traceId: string, ctx: Context) => Record<string, unknown>;

export const statusOf = (err: Failure): number => (err instanceof DomainError ? STATUS[err.code] : err.status);

/** A domain error's Retry-After: its own, or the 503 contract's for an outage (docs/operations.md, Outages). */
export function headersOf(err: Failure): Record<string, string> {
  if (!(err instanceof DomainError)) return err.extra.headers ?? {};
  const retryAfter =
    err.detail.retryAfterSeconds ?? (err.code === 'SERVICE_UNAVAILABLE' ? RETRY_AFTER_SECONDS : undefined);
  return retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
}

/**
 * alps and the legacy host: `{message, errors: [{message, context?}], traceId}`, which both published clients parse.
 * A liquidity shortfall answers its figures at the top level instead, where the 1.x client reads them.
 */
export function standardBody(err: Failure, traceId: string): Record<string, unknown> {
  if (!(err instanceof DomainError))
    return { message: err.message, errors: err.extra.errors ?? [{ message: err.message }], traceId };
  if (err.code === 'INSUFFICIENT_LIQUIDITY') return { error: err.code, ...(err.detail.details as object), traceId };
  return { message: err.message, errors: [{ message: err.message, context: err.detail.context }], traceId };
}

/**
 * The deposit processor: `{error, code?, details?, traceId}`. `code` is the processor's own for a domain refusal
 * (a deposit code, `WEBHOOK_NO_ENDPOINT`), SERVICE_UNAVAILABLE for an outage, or the edge's generic one
 * (VALIDATION_ERROR, REQUEST_TIMEOUT, SERVICE_UNAVAILABLE); the intent core's codes are left out. The version check
 * speaks this body too: its details become the documented `[{message, path, code}]`.
 */
export function depositBody(err: Failure, traceId: string): Record<string, unknown> {
  const domain = err instanceof DomainError;
  const code = domain
    ? (err.detail.reason ?? (err.code === 'SERVICE_UNAVAILABLE' ? err.code : undefined))
    : err.extra.code;
  const details =
    err instanceof VersionError
      ? [{ message: err.message, path: ['headers', 'x-api-version'], code: 'VALIDATION_ERROR' }]
      : domain
        ? err.detail.details
        : err.extra.details;
  return { error: err.message, ...(code ? { code } : {}), ...(details ? { details } : {}), traceId };
}

/** The current host: blanc's envelope, alps' body otherwise; a version the request names wrongly is told in the envelope. */
export const currentHostErrors: ErrorRenderer = (err, traceId, ctx) =>
  err instanceof VersionError || requestedVersion(ctx) === BLANC ? envelope(err, traceId) : standardBody(err, traceId);

export const legacyHostErrors: ErrorRenderer = (err, traceId) => standardBody(err, traceId);

export const depositProcessorErrors: ErrorRenderer = (err, traceId) => depositBody(err, traceId);
