import { Client, Connection } from '@temporalio/client';

/** A lazy connection: the API starts (and reports not-ready) even while Temporal is still coming up. */
export function createTemporalClient(address: string, namespace: string): Client {
  return new Client({ connection: Connection.lazy({ address }), namespace });
}
