import type { Db } from '../db/types';

/** Resolves once PostgreSQL answered a trivial statement (the readiness check's database probe). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.query('SELECT 1');
}
