import { MigrationInterface, QueryRunner } from 'typeorm';

export class SweepByDueTime1766170000001 implements MigrationInterface {
  name = 'SweepByDueTime1766170000001';

  async up(q: QueryRunner): Promise<void> {
    // The sweeper reads due signals in due order, those awaiting their owner apart from the others (src/outbox/outbox.ts):
    // each from its own range, so neither kind's backlog is walked to find the other's.
    await q.query(
      "CREATE INDEX signal_outbox_due_owned ON signal_outbox (retry_at, id) WHERE status = 'pending' AND nonce IS NULL",
    );
    await q.query(
      "CREATE INDEX signal_outbox_due_awaiting ON signal_outbox (retry_at, id) WHERE status = 'pending' AND nonce IS NOT NULL",
    );
    await q.query('DROP INDEX signal_outbox_due');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query("CREATE INDEX signal_outbox_due ON signal_outbox (retry_at) WHERE status = 'pending'");
    await q.query('DROP INDEX signal_outbox_due_awaiting');
    await q.query('DROP INDEX signal_outbox_due_owned');
  }
}
