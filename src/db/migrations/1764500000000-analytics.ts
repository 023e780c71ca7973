import { MigrationInterface, QueryRunner } from 'typeorm';

export class Analytics1764500000000 implements MigrationInterface {
  name = 'Analytics1764500000000';

  async up(q: QueryRunner): Promise<void> {
    // One row per widget event; project_id NULL when it came without an ingest token (unattributed).
    await q.query(`CREATE TABLE analytics_events (
      id bigserial PRIMARY KEY,
      project_id uuid REFERENCES projects(id) ON DELETE CASCADE,
      dedupe_key bytea NOT NULL,
      session_id text NOT NULL,
      event text NOT NULL,
      modal text,
      step text,
      outcome text,
      reason text,
      reason_family text,
      funding_method text,
      deposit_id text,
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      data jsonb NOT NULL)`);
    // A retried batch stores nothing twice.
    await q.query('CREATE UNIQUE INDEX analytics_events_dedupe ON analytics_events (dedupe_key)');
    // Funnel queries read a project's modal over a time range: a covering B-tree makes them index-only scans.
    await q.query(`CREATE INDEX analytics_events_funnel ON analytics_events (project_id, modal, occurred_at)
      INCLUDE (session_id, event, step, outcome, reason_family, funding_method, deposit_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE analytics_events');
  }
}
