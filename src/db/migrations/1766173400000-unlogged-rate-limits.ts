import { MigrationInterface, QueryRunner } from 'typeorm';

export class UnloggedRateLimits1766173400000 implements MigrationInterface {
  name = 'UnloggedRateLimits1766173400000';

  async up(q: QueryRunner): Promise<void> {
    // Every API-key request upserts its project's counter: unlogged, that write and its commit touch no WAL (no flush
    // wait while the row stays locked). A database crash or a failover empties the counters, which only restarts each
    // project's current window (docs/api.md, Rate limits).
    await q.query('ALTER TABLE rate_limits SET UNLOGGED');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rate_limits SET LOGGED');
  }
}
