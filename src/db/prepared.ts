import { createHash } from 'node:crypto';
import type { Tx } from './types';

// The DB layer under the stores: how a statement is run, never which; the SQL stays in the stores.
const names = new Map<string, string>();

/**
 * Runs a request-path statement as a named prepared statement: each pooled connection has PostgreSQL parse and plan
 * it once, then only binds and executes it: planning is most of the cost of those short statements (the balances read
 * of a quote among them). For fixed texts only: every connection keeps each distinct text it has run. Results are
 * shaped as `query` shapes them.
 */
export function preparedQuery<T = unknown>(db: Tx, text: string, params: unknown[]): Promise<T> {
  let name = names.get(text);
  if (!name) names.set(text, (name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`));
  const pg: PgQuery = db;
  return pg.query({ name, text }, params);
}

/** typeorm passes the query to pg as it is, and pg takes a {name, text} config in place of the text. */
interface PgQuery {
  query<T>(query: string | { name: string; text: string }, parameters: unknown[]): Promise<T>;
}

/**
 * For the FROM (or USING) list of a statement that commits on its own and need not wait for the WAL flush (a write
 * whose loss in a database crash only repeats idempotent work or loses an unused quote): the setting is local to the
 * statement's own transaction, so it is still in force at its commit.
 */
export const WITHOUT_FLUSH_WAIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS without_flush_wait";
