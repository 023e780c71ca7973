import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboxDeadLetters1765300000000 implements MigrationInterface {
  name = 'OutboxDeadLetters1765300000000';

  async up(q: QueryRunner): Promise<void> {
    // A row Temporal refuses is retried with backoff (`retry_at`), then dead-lettered: kept for an operator
    // (`npm run cli -- outbox dead-letters`), no longer retried, and out of the sweeper's way (src/outbox/outbox.ts).
    for (const table of ['workflow_outbox', 'signal_outbox']) {
      await q.query(`ALTER TABLE ${table}
        ADD COLUMN status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dead')),
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN last_error text,
        ADD COLUMN retry_at timestamptz NOT NULL DEFAULT now()`);
      await q.query(`CREATE INDEX ${table}_due ON ${table} (retry_at) WHERE status = 'pending'`);
    }
    // A lifecycle event whose intent or bundle is not recorded yet: kept by nonce, its owner looked up at each
    // delivery, and dead-lettered after `dead_after`.
    await q.query('ALTER TABLE signal_outbox ADD COLUMN nonce numeric, ADD COLUMN dead_after timestamptz');
    // Idempotent lifecycle events already queued (a preconfirmation per nonce and chain): a repeat queues nothing.
    await q.query(`CREATE TABLE lifecycle_event_keys (
      nonce numeric NOT NULL,
      type text NOT NULL,
      chain_id bigint NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (nonce, type, chain_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE lifecycle_event_keys');
    await q.query('ALTER TABLE signal_outbox DROP COLUMN nonce, DROP COLUMN dead_after');
    for (const table of ['workflow_outbox', 'signal_outbox']) {
      await q.query(`DROP INDEX ${table}_due`);
      await q.query(
        `ALTER TABLE ${table} DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN retry_at`,
      );
    }
  }
}
