import type depositCodes from './deposits/error-codes.json';

/** A deposit error code (docs/deposit-processor.md, Error codes); src/deposits/error-codes.json is their table. */
export type DepositErrorCode = keyof typeof depositCodes;

/**
 * Why the domain refuses or fails, as a stable code. Most are the current version's published codes (docs/api.md,
 * Error codes (blanc)); the last three no host publishes, and only their status tells them apart there.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNSUPPORTED_CHAIN'
  | 'UNSUPPORTED_TOKEN'
  | 'NO_ROUTE'
  | 'INSUFFICIENT_BALANCE'
  | 'INVALID_SIGNATURE'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'INSUFFICIENT_LIQUIDITY'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL'
  | 'SERVICE_UNAVAILABLE'
  /** an Idempotency-Key sent again with another request */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** a provider we called (identity verification) failed or refused the request */
  | 'PROVIDER_FAILED'
  /** switched off on this deployment (paused, or not configured): not an outage, so no Retry-After */
  | 'DISABLED';

/** The deposit processor's own codes, which its error body carries in `code`. */
export type ProcessorCode = DepositErrorCode | 'WEBHOOK_NO_ENDPOINT';

export interface ErrorDetail {
  /** particulars a client reads (field paths, figures): the blanc envelope's and the deposit body's `details` */
  details?: unknown;
  /** what the error is about (ids, indexes), beside the message in alps' and the legacy host's `errors[0].context` */
  context?: Record<string, unknown>;
  /** the deposit processor's code for the same refusal */
  reason?: ProcessorCode;
  /** seconds until trying again may succeed (a rate or a storage limit) */
  retryAfterSeconds?: number;
  /** what the deployment's operator should do about it (a setting to make): logged with the trace id, never sent */
  operatorHint?: string;
}

/**
 * What the domain throws when it refuses or cannot serve a request: a code, the message a client sees (matched
 * verbatim by the published clients, so each site keeps its exact text) and its detail. It knows nothing of HTTP:
 * each host renders it in its own body at the edge (src/http/error-bodies.ts), with the status the edge's one table
 * gives its code (STATUS, src/http/errors.ts); activities turn it into a Temporal failure
 * (src/temporal-sdk/activity-failure.ts).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly detail: ErrorDetail = {},
  ) {
    super(message);
  }
}
