import { MigrationInterface, QueryRunner } from 'typeorm';

export class Retention1766170000002 implements MigrationInterface {
  name = 'Retention1766170000002';

  async up(q: QueryRunner): Promise<void> {
    // The pruner (src/retention/prune.ts) finds rows past their retention by time: BRIN indexes, tiny and nearly free
    // to keep on tables written in time order.
    await q.query('CREATE INDEX lifecycle_event_keys_created ON lifecycle_event_keys USING brin (created_at)');
    await q.query('CREATE INDEX webhook_events_created ON webhook_events USING brin (created_at)');
    await q.query('CREATE INDEX webhook_attempts_attempted ON webhook_attempts USING brin (attempted_at)');
    await q.query('CREATE INDEX analytics_events_received ON analytics_events USING brin (received_at)');
    // A deposit's events in order: whether an event is its latest (kept), and the funnel report's processed outcome.
    await q.query(
      'CREATE INDEX webhook_events_deposit ON webhook_events (deposit_id, seq) WHERE deposit_id IS NOT NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'DROP INDEX webhook_events_deposit, analytics_events_received, webhook_attempts_attempted, webhook_events_created, lifecycle_event_keys_created',
    );
  }
}
