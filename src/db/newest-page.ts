import type { Db } from './types';

// The DB layer under the stores: a generic listing query, whose columns and conditions each store names itself.

/** A filter of a listing: SQL with one `?` for its value; left out when the value is absent (undefined or empty). */
export type Condition = readonly [sql: string, value: unknown];

/**
 * One page of a project's rows, newest first by `key`: the rows matching every given condition, one more fetched
 * than the page holds to tell whether another page follows.
 */
export async function newestPage<R>(
  db: Db,
  q: { columns: string; table: string; key: string; projectId: string; conditions: Condition[]; limit: number },
): Promise<{ page: R[]; more: boolean }> {
  const where = ['project_id = $1'];
  const params: unknown[] = [q.projectId];
  for (const [sql, value] of q.conditions) {
    if (!value) continue;
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  }
  params.push(q.limit + 1);
  const rows: R[] = await db.query(
    `SELECT ${q.columns} FROM ${q.table} WHERE ${where.join(' AND ')} ORDER BY ${q.key} DESC LIMIT $${params.length}`,
    params,
  );
  return { page: rows.slice(0, q.limit), more: rows.length > q.limit };
}

/** A timestamp column on the wire: RFC 3339, or null when unset. */
export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
