import { MigrationInterface, QueryRunner } from 'typeorm';

export class DelayedLifecycles1764900000000 implements MigrationInterface {
  name = 'DelayedLifecycles1764900000000';

  async up(q: QueryRunner): Promise<void> {
    // A lifecycle with nothing to do before its fill deadline starts with a Temporal start delay until then
    // (src/outbox/outbox.ts); signals to it are sent with its start, which wakes it.
    await q.query('ALTER TABLE workflow_outbox ADD COLUMN delay_until timestamptz');
    await q.query('ALTER TABLE signal_outbox ADD COLUMN start jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE signal_outbox DROP COLUMN start');
    await q.query('ALTER TABLE workflow_outbox DROP COLUMN delay_until');
  }
}
