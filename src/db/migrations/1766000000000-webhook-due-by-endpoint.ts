import { MigrationInterface, QueryRunner } from 'typeorm';

export class WebhookDueByEndpoint1766000000000 implements MigrationInterface {
  name = 'WebhookDueByEndpoint1766000000000';

  async up(q: QueryRunner): Promise<void> {
    // The lease (src/webhooks/lease-store.ts) reads each endpoint's due deliveries from its own range, so an endpoint's
    // backlog costs other endpoints' claims nothing; it replaces the index in due order that the claim walked.
    await q.query(`CREATE INDEX webhook_deliveries_due_by_endpoint ON webhook_deliveries (endpoint_id, next_attempt_at, event_seq)
      WHERE status = 'pending' AND workflow_id IS NULL`);
    await q.query('DROP INDEX webhook_deliveries_due');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND workflow_id IS NULL`,
    );
    await q.query('DROP INDEX webhook_deliveries_due_by_endpoint');
  }
}
