/**
 * What features see of the database: a statement, and a transaction whose statements commit together. TypeORM's
 * `DataSource` (src/db/data-source.ts) is a `Db` and the manager of its transactions a `Tx`; nothing outside src/db
 * imports TypeORM, so the pool, transactions and migrations are its only job here.
 */
export interface Tx {
  // Rows come back untyped, as pg gives them: each store declares the shape its own SQL renames them to.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<T = any>(sql: string, params?: unknown[]): Promise<T>;
}

export interface Db extends Tx {
  transaction<T>(run: (tx: Tx) => Promise<T>): Promise<T>;
}
