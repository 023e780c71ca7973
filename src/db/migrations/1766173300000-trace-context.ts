import { MigrationInterface, QueryRunner } from 'typeorm';

export class TraceContext1766173300000 implements MigrationInterface {
  name = 'TraceContext1766173300000';

  async up(q: QueryRunner): Promise<void> {
    // The W3C trace context of the request that wrote the row, or opened the event's delivery round (docs/tracing.md):
    // whoever performs it later (the request itself, the outbox sweeper, a worker's lease loop) continues that
    // request's trace. Null without tracing; a nullable column without a default rewrites nothing.
    for (const table of ['workflow_outbox', 'signal_outbox', 'webhook_events'])
      await q.query(`ALTER TABLE ${table} ADD COLUMN trace_context jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['workflow_outbox', 'signal_outbox', 'webhook_events'])
      await q.query(`ALTER TABLE ${table} DROP COLUMN trace_context`);
  }
}
