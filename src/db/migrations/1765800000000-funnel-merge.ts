import { MigrationInterface, QueryRunner } from 'typeorm';

export class FunnelMerge1765800000000 implements MigrationInterface {
  name = 'FunnelMerge1765800000000';

  async up(q: QueryRunner): Promise<void> {
    // Two rows of one session merged (its events on one day from two batches, or its days in a report's range): the
    // single definition that ingest and reports use (src/analytics/rollup-store.ts). Symmetric, so the order in which an
    // aggregate meets the rows does not matter; the key and `spans` are the first row's.
    await q.query(`CREATE FUNCTION analytics_funnel_merge(a analytics_funnel_sessions, b analytics_funnel_sessions)
      RETURNS analytics_funnel_sessions LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT ROW(a.project_id, a.modal, a.session_id, a.day, least(a.started_us, b.started_us), least(a.completed_us, b.completed_us),
          ARRAY(SELECT DISTINCT m COLLATE "C" FROM unnest(a.methods || b.methods) m ORDER BY 1),
          (SELECT coalesce(jsonb_object_agg(key, v), '{}') FROM (SELECT key, min(value::numeric) AS v FROM (SELECT * FROM jsonb_each(a.steps) UNION ALL SELECT * FROM jsonb_each(b.steps)) x GROUP BY key) y),
          (SELECT coalesce(jsonb_object_agg(key, v), '{}') FROM (SELECT key, sum(value::numeric) AS v FROM (SELECT * FROM jsonb_each(a.outcomes) UNION ALL SELECT * FROM jsonb_each(b.outcomes)) x GROUP BY key) y),
          (SELECT coalesce(jsonb_object_agg(key, v), '{}') FROM (SELECT key, sum(value::numeric) AS v FROM (SELECT * FROM jsonb_each(a.families) UNION ALL SELECT * FROM jsonb_each(b.families)) x GROUP BY key) y),
          l.last_outcome, l.last_outcome_us,
          ARRAY(SELECT DISTINCT d COLLATE "C" FROM unnest(a.deposits || b.deposits) d ORDER BY 1),
          a.spans)::analytics_funnel_sessions
        FROM (SELECT * FROM (VALUES (a.last_outcome, a.last_outcome_us), (b.last_outcome, b.last_outcome_us)) v (last_outcome, last_outcome_us)
              ORDER BY last_outcome_us DESC NULLS LAST, last_outcome COLLATE "C" DESC LIMIT 1) l
      $$`);
    await q.query(
      'CREATE AGGREGATE analytics_funnel_merged(analytics_funnel_sessions) (SFUNC = analytics_funnel_merge, STYPE = analytics_funnel_sessions, PARALLEL = SAFE)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP AGGREGATE analytics_funnel_merged(analytics_funnel_sessions)');
    await q.query('DROP FUNCTION analytics_funnel_merge');
  }
}
