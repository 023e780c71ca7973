import { Client, Connection } from '@temporalio/client';
import { processTracing } from '../tracing/start';

/**
 * A lazy connection: the API starts (and reports not-ready) even while Temporal is still coming up. With tracing on,
 * its starts and signals carry their trace to the workflows (docs/tracing.md).
 */
export function createTemporalClient(address: string, namespace: string): Client {
  return new Client({
    connection: Connection.lazy({ address }),
    namespace,
    interceptors: { workflow: processTracing()?.temporalClient ?? [] },
  });
}
