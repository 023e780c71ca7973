import { MigrationInterface, QueryRunner } from 'typeorm';

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
    // The rollup of the events already recorded, as src/analytics/rollup-store.ts computed it when this migration
    // was written (a migration holds its own SQL: later code may compute otherwise).
    await q.query("SET LOCAL work_mem = '256MB'");
    await q.query(`INSERT INTO analytics_funnel_sessions (project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans)
      WITH e AS (
        SELECT project_id, modal, session_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, (extract(epoch FROM occurred_at) * 1000000)::bigint AS us,
               event, step, outcome, reason_family, funding_method, deposit_id
        FROM analytics_events WHERE project_id IS NOT NULL AND modal IS NOT NULL),
      s AS (SELECT project_id, modal, session_id, day, min(us) AS started_us, min(us) FILTER (WHERE outcome = 'completed') AS completed_us,
                   coalesce(array_agg(DISTINCT funding_method COLLATE "C") FILTER (WHERE funding_method IS NOT NULL), '{}') AS methods,
                   coalesce(array_agg(DISTINCT deposit_id COLLATE "C") FILTER (WHERE deposit_id IS NOT NULL), '{}') AS deposits,
                   (array_agg(outcome ORDER BY us DESC, outcome COLLATE "C" DESC) FILTER (WHERE outcome IS NOT NULL))[1] AS last_outcome,
                   max(us) FILTER (WHERE outcome IS NOT NULL) AS last_outcome_us
            FROM e GROUP BY 1, 2, 3, 4),
      st AS (SELECT project_id, modal, session_id, day, jsonb_object_agg(step, t) AS steps FROM (
               SELECT project_id, modal, session_id, day, step, min(us) AS t FROM e WHERE event = 'deposit_modal_step_open' AND step IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
      oc AS (SELECT project_id, modal, session_id, day, jsonb_object_agg(outcome, n) AS outcomes FROM (
               SELECT project_id, modal, session_id, day, outcome, count(*) AS n FROM e WHERE outcome IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
      fa AS (SELECT project_id, modal, session_id, day, jsonb_object_agg(k, n) AS families FROM (
               SELECT project_id, modal, session_id, day, outcome || '/' || reason_family AS k, count(*) AS n FROM e WHERE outcome IS NOT NULL AND reason_family IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
      days AS (SELECT s.project_id, s.modal, s.session_id, s.day, s.started_us, s.completed_us, s.methods, coalesce(st.steps, '{}') AS steps,
                      coalesce(oc.outcomes, '{}') AS outcomes, coalesce(fa.families, '{}') AS families, s.last_outcome, s.last_outcome_us, s.deposits
               FROM s LEFT JOIN st USING (project_id, modal, session_id, day) LEFT JOIN oc USING (project_id, modal, session_id, day) LEFT JOIN fa USING (project_id, modal, session_id, day))
      SELECT days.*, count(*) OVER (PARTITION BY project_id, modal, session_id) > 1 FROM days`);
    await q.query(`INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
      SELECT s.project_id, s.modal, c.method, s.day, c.metric, c.key, sum(c.value)
      FROM analytics_funnel_sessions s, LATERAL analytics_funnel_contribution(s.methods, s.started_us, s.completed_us, s.steps, s.outcomes, s.families) c
      WHERE NOT s.spans GROUP BY 1, 2, 3, 4, 5, 6`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION analytics_funnel_contribution');
    await q.query('DROP TABLE analytics_funnel_days, analytics_funnel_sessions');
  }
}
