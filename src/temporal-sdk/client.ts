import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { processTracing } from '../tracing/start';

/*
 * Connection's call context (withDeadline, withMetadata) is an AsyncLocalStorage, whose first use turns on promise
 * hooks for the whole process (on Node 20): every promise of every request then pays for them, about a tenth of the
 * API's CPU. What it would carry here is the same for every call, so it goes with the calls' options instead.
 */

/** Gives every call without a deadline of its own one `ms` from its start (and its retries with it). */
const deadlineAfter =
  (ms: number): Interceptor =>
  (options, nextCall) =>
    new InterceptingCall(nextCall({ ...options, deadline: options.deadline ?? Date.now() + ms }));

/**
 * Sends the namespace header as static metadata (set below): Connection sets it around every namespaced call with
 * withMetadata, which is left with nothing to add.
 */
class StaticMetadataConnection extends Connection {
  override withMetadata<R>(metadata: Parameters<Connection['withMetadata']>[0], fn: () => Promise<R>): Promise<R> {
    const always = this.options.metadata;
    return Object.entries(metadata).every(([k, v]) => always[k] === v) ? fn() : super.withMetadata(metadata, fn);
  }
}

/**
 * A lazy connection: the API starts (and reports not-ready) even while Temporal is still coming up. With tracing on,
 * its starts and signals carry their trace to the workflows (docs/tracing.md). `callTimeoutMs` (API processes): each
 * call gives up after this, so a request whose transaction committed answers while Temporal is down; the outbox row
 * keeps the work for the sweeper.
 */
export function createTemporalClient(address: string, namespace: string, callTimeoutMs?: number): Client {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return new Client({
    connection: StaticMetadataConnection.lazy({
      address,
      metadata: { 'temporal-namespace': namespace },
      // The deadline first, so that it bounds the retries too; the retries are the client's default.
      interceptors: callTimeoutMs ? [deadlineAfter(callTimeoutMs), retry] : [retry],
    }),
    namespace,
    interceptors: { workflow: processTracing()?.temporalClient ?? [] },
  });
}
