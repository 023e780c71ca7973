import { isGrpcServiceError } from '@temporalio/client';

/** gRPC status codes (google.rpc.Code) of Temporal's refusals. */
const INVALID_ARGUMENT = 3;
const FAILED_PRECONDITION = 9;

/**
 * What a failed request means for its row. `final`: Temporal refused it for good (an invalid request): dead-letter at
 * once. `refused`: a limit of the workflow (it lifts when the run continues as new), or an error that is not
 * Temporal's answer at all (the row itself cannot be sent): counted, and dead-lettered after `maxAttempts`.
 * `unavailable`: any other answer of Temporal's (unreachable, deadline exceeded, overloaded): not counted.
 */
export function refusal(err: unknown): 'final' | 'refused' | 'unavailable' {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (!isGrpcServiceError(e)) continue;
    if (/workflow execution limit/i.test(e.details)) return 'refused';
    return e.code === INVALID_ARGUMENT || e.code === FAILED_PRECONDITION ? 'final' : 'unavailable';
  }
  return 'refused';
}
