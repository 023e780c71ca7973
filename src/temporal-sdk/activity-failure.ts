import { ApplicationFailure } from '@temporalio/common';
import { DomainError, type ErrorCode } from '../errors';

/** Codes another try may change (an outage, a fault, a provider down, a switched-off feature coming back). */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
  'PROVIDER_FAILED',
  'DISABLED',
]);

export const isRetryable = (code: ErrorCode): boolean => TRANSIENT.has(code);

/**
 * What an activity throws for `e`: a domain error becomes an ApplicationFailure of its code, non-retryable unless
 * the code is transient (any other refusal answers the same on every retry, so retrying only delays the workflow's
 * decision); anything else stays as it is, for Temporal's retry policy.
 */
export function activityFailure(e: unknown): unknown {
  if (!(e instanceof DomainError)) return e;
  return ApplicationFailure.create({ message: e.message, type: e.code, nonRetryable: !isRetryable(e.code) });
}
