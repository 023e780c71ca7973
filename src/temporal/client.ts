import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { processTracing } from '../tracing/start';

/**
 * Gives every call without a deadline of its own one `ms` from its start. Set per call on the gRPC options rather than
 * with Connection.withDeadline, whose AsyncLocalStorage turns on promise hooks for the whole process (on Node 20),
 * which cost every promise of every request about a tenth of the API's CPU.
 */
const deadlineAfter =
  (ms: number): Interceptor =>
  (options, nextCall) =>
    new InterceptingCall(nextCall({ ...options, deadline: options.deadline ?? Date.now() + ms }));

/**
 * A lazy connection: the API starts (and reports not-ready) even while Temporal is still coming up. With tracing on,
 * its starts and signals carry their trace to the workflows (docs/tracing.md). `callTimeoutMs` (API processes): each
 * call gives up after this (and its retries with it), so a request whose transaction committed answers while Temporal
 * is down; the outbox row keeps the work for the sweeper.
 */
export function createTemporalClient(address: string, namespace: string, callTimeoutMs?: number): Client {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return new Client({
    connection: Connection.lazy({
      address,
      // The deadline first, so that it bounds the retries too; the retries are the client's default.
      interceptors: callTimeoutMs ? [deadlineAfter(callTimeoutMs), retry] : [retry],
    }),
    namespace,
    interceptors: { workflow: processTracing()?.temporalClient ?? [] },
  });
}
