import { MigrationInterface, QueryRunner } from 'typeorm';

export class RateLimits1764400000000 implements MigrationInterface {
  name = 'RateLimits1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // rate-limiter-flexible's PostgreSQL store (its own schema), shared by every API process.
    await q.query(
      'CREATE TABLE rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)',
    );
    // A project's own quota; NULL takes RATE_LIMIT_RPS / RATE_LIMIT_BURST.
    await q.query(
      'ALTER TABLE projects ADD COLUMN rate_limit_rps integer CHECK (rate_limit_rps > 0), ADD COLUMN rate_limit_burst integer CHECK (rate_limit_burst >= 0)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE projects DROP COLUMN rate_limit_rps, DROP COLUMN rate_limit_burst');
    await q.query('DROP TABLE rate_limits');
  }
}
