import { MigrationInterface, QueryRunner } from 'typeorm';

export class UnattributedAnalytics1765500000000 implements MigrationInterface {
  name = 'UnattributedAnalytics1765500000000';

  async up(q: QueryRunner): Promise<void> {
    // The ingest route counts stored unattributed rows against their cap (src/analytics/unattributed.ts): an
    // index-only count of this partial index, never a scan of every project's events.
    await q.query(
      'CREATE INDEX analytics_events_unattributed ON analytics_events (occurred_at) WHERE project_id IS NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX analytics_events_unattributed');
  }
}
