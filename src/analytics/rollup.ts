import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * The funnel's rollup. The raw table (analytics_events) stays the source of truth; two tables are kept from it in
 * the transaction that stores each batch:
 * - analytics_funnel_sessions: per project, modal, session and UTC day, what the session did that day (first opening
 *   of each step, start, first completion, funding methods, outcome and reason-family counts, deposits seen).
 * - analytics_funnel_days: per project, modal, funding method and day, the sums of the contributions of the sessions
 *   that have events on that day only (analytics_funnel_contribution, in SQL).
 * A session with events on several days (`spans`) is left out of the sums: a report merges its days at read time,
 * as it merges the sessions of a partial day at either end of its range, computed from the raw events. So every
 * count is of distinct sessions over exactly the report's range, as the raw computation gives. Both tables are
 * needed: the sums answer a report without visiting its sessions, and the session rows let a batch move a day's
 * sums by what it changed (and hold the sessions that are merged at read time). A session's row, their merge and
 * its contribution are each defined once, in SQL.
 */
/**
 * SQL: the session-day rows of the events in `source` (a table or CTE with analytics_events' columns) that pass
 * `where`; one definition for ingest, rebuilds and the partial days of a report.
 */
export function sessionDaysSql(source: string, where = ''): string {
  const key = 'project_id, modal, session_id, day';
  return `WITH e AS (
      SELECT project_id, modal, session_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, (extract(epoch FROM occurred_at) * 1000000)::bigint AS us,
             event, step, outcome, reason_family, funding_method, deposit_id
      FROM ${source} WHERE project_id IS NOT NULL AND modal IS NOT NULL ${where}),
    s AS (SELECT ${key}, min(us) AS started_us, min(us) FILTER (WHERE outcome = 'completed') AS completed_us,
                 coalesce(array_agg(DISTINCT funding_method COLLATE "C") FILTER (WHERE funding_method IS NOT NULL), '{}') AS methods,
                 coalesce(array_agg(DISTINCT deposit_id COLLATE "C") FILTER (WHERE deposit_id IS NOT NULL), '{}') AS deposits,
                 (array_agg(outcome ORDER BY us DESC, outcome COLLATE "C" DESC) FILTER (WHERE outcome IS NOT NULL))[1] AS last_outcome,
                 max(us) FILTER (WHERE outcome IS NOT NULL) AS last_outcome_us
          FROM e GROUP BY 1, 2, 3, 4),
    st AS (SELECT ${key}, jsonb_object_agg(step, t) AS steps FROM (
             SELECT ${key}, step, min(us) AS t FROM e WHERE event = 'deposit_modal_step_open' AND step IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
    oc AS (SELECT ${key}, jsonb_object_agg(outcome, n) AS outcomes FROM (
             SELECT ${key}, outcome, count(*) AS n FROM e WHERE outcome IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
    fa AS (SELECT ${key}, jsonb_object_agg(k, n) AS families FROM (
             SELECT ${key}, outcome || '/' || reason_family AS k, count(*) AS n FROM e WHERE outcome IS NOT NULL AND reason_family IS NOT NULL GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4),
    days AS (SELECT s.project_id, s.modal, s.session_id, s.day, s.started_us, s.completed_us, s.methods, coalesce(st.steps, '{}') AS steps,
                    coalesce(oc.outcomes, '{}') AS outcomes, coalesce(fa.families, '{}') AS families, s.last_outcome, s.last_outcome_us, s.deposits
             FROM s LEFT JOIN st USING (${key}) LEFT JOIN oc USING (${key}) LEFT JOIN fa USING (${key}))`;
}

/** Byte order (for ASCII, as COLLATE "C" sorts). */
export const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * SQL: the advisory lock key of a session (project_id, modal, session_id in scope). A batch takes its sessions' locks
 * in the order of these keys before a statement of its own reads their rollup rows, so two batches of one session
 * never both take it for single-day; two sessions that share a key only wait for each other.
 */
export const SESSION_LOCK = "hashtextextended(project_id::text || '/' || modal || '/' || session_id, 7271)";

const ROW_COLUMNS = 'project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits';
const CONTRIBUTION = 'analytics_funnel_contribution(x.methods, x.started_us, x.completed_us, x.steps, x.outcomes, x.families)';

/**
 * SQL (the rest of a WITH after a `days` CTE of sessionDaysSql's columns, whose sessions are locked): folds those
 * session-day rows into the rollup, set-based, with the SQL definitions (analytics_funnel_merge: a day's two rows
 * merged; analytics_funnel_contribution: a session's sums). The rows of the batch's sessions are merged per day with
 * what is stored, `spans` recomputed, the changed rows written, and the day sums moved by the contributions after
 * minus before (unchanged rows cancel). The sums are written in key order so concurrent batches never deadlock on a
 * day's rows. `merged` is materialized so each field of a row reads one merge (inlined, every field would redo it);
 * the stored rows are looked up per session (the `IN (SELECT ...)` form measured several times slower).
 */
export const FOLD_BATCH = `old AS (SELECT f AS r FROM (SELECT DISTINCT project_id, modal, session_id FROM days) k,
                  LATERAL (SELECT f FROM analytics_funnel_sessions f WHERE f.project_id = k.project_id AND f.modal = k.modal AND f.session_id = k.session_id) f),
    merged AS MATERIALIZED (
      SELECT coalesce(analytics_funnel_merge(o.r, n.r), o.r, n.r) AS r, o.r AS was
      FROM (SELECT ROW(d.*, false)::analytics_funnel_sessions AS r FROM days d) n
      FULL JOIN old o ON (o.r).project_id = (n.r).project_id AND (o.r).modal = (n.r).modal AND (o.r).session_id = (n.r).session_id AND (o.r).day = (n.r).day),
    now AS (SELECT ${ROW_COLUMNS.split(', ').map((c) => `(r).${c}`).join(', ')}, count(*) OVER (PARTITION BY (r).project_id, (r).modal, (r).session_id) > 1 AS spans, was FROM merged),
    written AS (
      INSERT INTO analytics_funnel_sessions (${ROW_COLUMNS}, spans)
      SELECT ${ROW_COLUMNS}, spans FROM now WHERE was IS DISTINCT FROM ROW(${ROW_COLUMNS}, spans)::analytics_funnel_sessions
      ON CONFLICT (project_id, modal, session_id, day) DO UPDATE SET ${ROW_COLUMNS.split(', ').slice(4).concat('spans').map((c) => `${c} = EXCLUDED.${c}`).join(', ')}),
    summed AS (
      INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
      SELECT x.project_id, x.modal, c.method, x.day, c.metric, c.key, sum(x.sign * c.value)
      FROM (SELECT ${ROW_COLUMNS}, 1 AS sign FROM now WHERE NOT spans UNION ALL SELECT ${ROW_COLUMNS.split(', ').map((c) => `(r).${c}`).join(', ')}, -1 FROM old WHERE NOT (r).spans) x,
        LATERAL ${CONTRIBUTION} c
      GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(x.sign * c.value) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (project_id, modal, method, day, metric, key) DO UPDATE SET value = analytics_funnel_days.value + EXCLUDED.value)`;

/**
 * SQL: the funnel sums (metric, key, value) of the sessions in `rows` (a query of analytics_funnel_sessions values named
 * r) merged per session, counted under funding method $3 ('' = every session; a session counts under a method it
 * used), followed by the (session_id, last_outcome, deposits) of those that saw deposits (metric NULL).
 */
export const mergedSessionsSql = (rows: string) => `merged AS (SELECT analytics_funnel_merged(r) AS r FROM (${rows}) rows GROUP BY (r).project_id, (r).modal, (r).session_id),
    scoped AS (SELECT (r).* FROM merged WHERE $3 = '' OR $3 = ANY((r).methods))
  SELECT c.metric, c.key, sum(c.value)::text AS value, NULL AS session_id, NULL AS last_outcome, NULL::text[] AS deposits
  FROM scoped x, LATERAL ${CONTRIBUTION} c WHERE c.method = $3 GROUP BY 1, 2
  UNION ALL SELECT NULL, NULL, NULL, session_id, last_outcome, deposits FROM scoped WHERE deposits <> '{}'`;

/**
 * Rebuilds the rollup of one project (or of every project) from the raw events, set-based in SQL with the
 * definitions ingest uses: the migration that introduced it, and the benchmark after loading events with
 * INSERT ... SELECT. For a table no batch is being stored into meanwhile.
 */
export async function rebuildFunnelRollup(db: DataSource | QueryRunner, projectId?: string): Promise<void> {
  if ('transaction' in db) return db.transaction((tx) => rebuild(tx, projectId));
  return rebuild(db, projectId);
}

async function rebuild(db: QueryRunner | EntityManager, projectId?: string): Promise<void> {
  const only = projectId ? 'AND project_id = $1' : '';
  const params = projectId ? [projectId] : [];
  await db.query("SET LOCAL work_mem = '256MB'"); // sorting and hashing every session at once
  await db.query(`DELETE FROM analytics_funnel_sessions WHERE true ${only}`, params);
  await db.query(`DELETE FROM analytics_funnel_days WHERE true ${only}`, params);
  await db.query(
    `INSERT INTO analytics_funnel_sessions (project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans)
     ${sessionDaysSql('analytics_events', only)}
     SELECT days.*, count(*) OVER (PARTITION BY project_id, modal, session_id) > 1 FROM days`,
    params,
  );
  await db.query(
    `INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
     SELECT s.project_id, s.modal, c.method, s.day, c.metric, c.key, sum(c.value)
     FROM analytics_funnel_sessions s, LATERAL analytics_funnel_contribution(s.methods, s.started_us, s.completed_us, s.steps, s.outcomes, s.families) c
     WHERE NOT s.spans ${only} GROUP BY 1, 2, 3, 4, 5, 6`,
    params,
  );
}
