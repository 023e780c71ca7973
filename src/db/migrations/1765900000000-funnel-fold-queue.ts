import { MigrationInterface, QueryRunner } from 'typeorm';

export class FunnelFoldQueue1765900000000 implements MigrationInterface {
  name = 'FunnelFoldQueue1765900000000';

  async up(q: QueryRunner): Promise<void> {
    // The stored batches whose events are not yet in the funnel's rollup (src/analytics/rollup-store.ts): one row a batch,
    // written by the statement that stores it and deleted by the transaction that folds it, so a batch is folded
    // exactly once whatever process dies when.
    await q.query(`CREATE TABLE analytics_fold_queue (
      id bigserial PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      event_ids bigint[] NOT NULL)`);
    await q.query('CREATE INDEX analytics_fold_queue_project ON analytics_fold_queue (project_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE analytics_fold_queue');
  }
}
