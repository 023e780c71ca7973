import type { DataSource } from 'typeorm';

/** Resolves once PostgreSQL answered a trivial statement (the readiness check's database probe). */
export async function pingDatabase(db: DataSource): Promise<void> {
  await db.query('SELECT 1');
}
