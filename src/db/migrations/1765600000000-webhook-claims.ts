import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookClaims1765600000000 implements MigrationInterface {
  name = 'WebhookClaims1765600000000';

  async up(q: QueryRunner): Promise<void> {
    // Who owns a pending delivery: NULL = the workers' claim loop (its first attempt; next_attempt_at is when it is
    // due, or the end of the lease of the worker attempting it); else the Temporal workflow running its retries.
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN workflow_id text');
    // Deliveries pending before this migration belong to their round's workflow, as they always did.
    await q.query(`UPDATE webhook_deliveries d SET workflow_id = 'webhook-' || e.event_id || '-' || d.round
      FROM webhook_events e WHERE e.seq = d.event_seq AND d.status = 'pending'`);
    await q.query(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND workflow_id IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_due');
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN workflow_id');
  }
}
