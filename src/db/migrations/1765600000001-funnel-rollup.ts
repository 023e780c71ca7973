import { MigrationInterface, QueryRunner } from 'typeorm';
import { rebuildTables } from '../../analytics/rollup-store';

export class FunnelRollup1765600000001 implements MigrationInterface {
  name = 'FunnelRollup1765600000001';

  async up(q: QueryRunner): Promise<void> {
    // What one session did on one UTC day in one modal of a project (src/analytics/rollup-store.ts). Times are epoch
    // microseconds, exact as PostgreSQL keeps them. `spans`: the session has events on more than one day, so its
    // days are merged when a report is read instead of being counted in analytics_funnel_days.
    await q.query(`CREATE TABLE analytics_funnel_sessions (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      modal text NOT NULL,
      session_id text NOT NULL,
      day date NOT NULL,
      started_us bigint NOT NULL,
      completed_us bigint,
      methods text[] NOT NULL,
      steps jsonb NOT NULL,
      outcomes jsonb NOT NULL,
      families jsonb NOT NULL,
      last_outcome text,
      last_outcome_us bigint,
      deposits text[] NOT NULL,
      spans boolean NOT NULL DEFAULT false,
      PRIMARY KEY (project_id, modal, session_id, day))`);
    await q.query(
      'CREATE INDEX analytics_funnel_sessions_spanning ON analytics_funnel_sessions (project_id, modal, day) WHERE spans',
    );
    await q.query(
      "CREATE INDEX analytics_funnel_sessions_deposits ON analytics_funnel_sessions (project_id, modal, day) WHERE deposits <> '{}'",
    );
    // The sums of every single-day session's contribution, per funding method ('' = every session) and day.
    await q.query(`CREATE TABLE analytics_funnel_days (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      modal text NOT NULL,
      method text NOT NULL,
      day date NOT NULL,
      metric text NOT NULL,
      key text NOT NULL,
      value bigint NOT NULL,
      PRIMARY KEY (project_id, modal, method, day, metric, key))`);
    // One session's contribution to the funnel's sums: the single definition used at ingest, by a rebuild and for
    // sessions merged when a report is read. Steps are ranked by first opening, then by name (byte order).
    await q.query(`CREATE FUNCTION analytics_funnel_contribution(methods text[], started_us bigint, completed_us bigint, steps jsonb, outcomes jsonb, families jsonb)
      RETURNS TABLE (method text, metric text, key text, value bigint) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        WITH ranked AS (
          SELECT s.key AS step, row_number() OVER (ORDER BY s.value::bigint, s.key COLLATE "C") AS position, count(*) OVER () AS reached
          FROM jsonb_each(steps) s),
        parts (metric, key, value) AS (
          SELECT 'entered', '', 1::bigint WHERE steps <> '{}'::jsonb
          UNION ALL SELECT 'step_sessions', step, 1 FROM ranked
          UNION ALL SELECT 'step_position', step, position FROM ranked
          UNION ALL SELECT 'step_last', step, 1 FROM ranked WHERE position = reached
          UNION ALL SELECT 'step_drop', step, 1 FROM ranked WHERE position = reached AND completed_us IS NULL
          UNION ALL SELECT 'duration_us', (completed_us - started_us)::text, 1 WHERE completed_us IS NOT NULL
          UNION ALL SELECT 'outcome_events', o.key, o.value::bigint FROM jsonb_each_text(outcomes) o
          UNION ALL SELECT 'outcome_sessions', o.key, 1 FROM jsonb_each_text(outcomes) o
          UNION ALL SELECT 'family_events', f.key, f.value::bigint FROM jsonb_each_text(families) f)
        SELECT m, p.metric, p.key, p.value FROM parts p, unnest(array[''] || methods) AS m
      $$`);
    await rebuildTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION analytics_funnel_contribution');
    await q.query('DROP TABLE analytics_funnel_days, analytics_funnel_sessions');
  }
}
