import type { Db, Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';

/**
 * The funnel's rollup. The raw table (analytics_events) stays the source of truth; two tables are kept from it:
 * - analytics_funnel_sessions: per project, modal, session and UTC day, what the session did that day (first opening
 *   of each step, start, first completion, funding methods, outcome and reason-family counts, deposits seen).
 * - analytics_funnel_days: per project, modal, funding method and day, the sums of the contributions of the sessions
 *   that have events on that day only (analytics_funnel_contribution, in SQL).
 * A session with events on several days (`spans`) is left out of the sums: a report merges its days at read time,
 * as it merges the sessions of a partial day at either end of its range, computed from the raw events. So every
 * count is of distinct sessions over exactly the report's range, as the raw computation gives. Both tables are
 * needed: the sums answer a report without visiting its sessions, and the session rows let a fold move a day's
 * sums by what it changed (and hold the sessions that are merged at read time). A session's row, their merge and
 * its contribution are each defined once, in SQL.
 *
 * Ingest does not fold: the statement that stores a batch queues its new events' ids (analytics_fold_queue), and a
 * fold takes a project's queued batches into the rollup in one transaction under the project's fold lock: each
 * worker every second (FunnelFolder), and a report before it reads (so it counts every event stored before it
 * began). Folding many batches at once merges each session once per fold instead of once per batch.
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

const ROW_COLUMNS =
  'project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits';
const CONTRIBUTION =
  'analytics_funnel_contribution(x.methods, x.started_us, x.completed_us, x.steps, x.outcomes, x.families)';

/**
 * SQL (the rest of a WITH after a `days` CTE of sessionDaysSql's columns, under their project's fold lock): folds
 * those session-day rows into the rollup, set-based, with the SQL definitions (analytics_funnel_merge: a day's two
 * rows merged; analytics_funnel_contribution: a session's sums). The rows of the fold's sessions are merged per day
 * with what is stored, `spans` recomputed, the changed rows written, and the day sums moved by the contributions
 * after minus before (unchanged rows cancel). `merged` is materialized so each field of a row reads one merge (inlined, every field would redo it);
 * the stored rows are looked up per session (the `IN (SELECT ...)` form measured several times slower).
 */
const FOLD_DAYS = `old AS (SELECT f AS r FROM (SELECT DISTINCT project_id, modal, session_id FROM days) k,
                  LATERAL (SELECT f FROM analytics_funnel_sessions f WHERE f.project_id = k.project_id AND f.modal = k.modal AND f.session_id = k.session_id) f),
    merged AS MATERIALIZED (
      SELECT coalesce(analytics_funnel_merge(o.r, n.r), o.r, n.r) AS r, o.r AS was
      FROM (SELECT ROW(d.*, false)::analytics_funnel_sessions AS r FROM days d) n
      FULL JOIN old o ON (o.r).project_id = (n.r).project_id AND (o.r).modal = (n.r).modal AND (o.r).session_id = (n.r).session_id AND (o.r).day = (n.r).day),
    now AS (SELECT ${ROW_COLUMNS.split(', ')
      .map((c) => `(r).${c}`)
      .join(
        ', ',
      )}, count(*) OVER (PARTITION BY (r).project_id, (r).modal, (r).session_id) > 1 AS spans, was FROM merged),
    written AS (
      INSERT INTO analytics_funnel_sessions (${ROW_COLUMNS}, spans)
      SELECT ${ROW_COLUMNS}, spans FROM now WHERE was IS DISTINCT FROM ROW(${ROW_COLUMNS}, spans)::analytics_funnel_sessions
      ON CONFLICT (project_id, modal, session_id, day) DO UPDATE SET ${ROW_COLUMNS.split(', ')
        .slice(4)
        .concat('spans')
        .map((c) => `${c} = EXCLUDED.${c}`)
        .join(', ')}),
    summed AS (
      INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
      SELECT x.project_id, x.modal, c.method, x.day, c.metric, c.key, sum(x.sign * c.value)
      FROM (SELECT ${ROW_COLUMNS}, 1 AS sign FROM now WHERE NOT spans UNION ALL SELECT ${ROW_COLUMNS.split(', ')
        .map((c) => `(r).${c}`)
        .join(', ')}, -1 FROM old WHERE NOT (r).spans) x,
        LATERAL ${CONTRIBUTION} c
      GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(x.sign * c.value) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
      ON CONFLICT (project_id, modal, method, day, metric, key) DO UPDATE SET value = analytics_funnel_days.value + EXCLUDED.value)`;

/**
 * SQL: the funnel sums (metric, key, value) of the sessions in `rows` (a query of analytics_funnel_sessions values named
 * r) merged per session, counted under funding method $3 ('' = every session; a session counts under a method it
 * used), followed by the (sessionId, lastOutcome, deposits) of those that saw deposits (metric NULL).
 */
export const mergedSessionsSql = (
  rows: string,
) => `merged AS (SELECT analytics_funnel_merged(r) AS r FROM (${rows}) rows GROUP BY (r).project_id, (r).modal, (r).session_id),
    scoped AS (SELECT (r).* FROM merged WHERE $3 = '' OR $3 = ANY((r).methods))
  SELECT c.metric, c.key, sum(c.value)::text AS value, NULL AS "sessionId", NULL AS "lastOutcome", NULL::text[] AS deposits
  FROM scoped x, LATERAL ${CONTRIBUTION} c WHERE c.method = $3 GROUP BY 1, 2
  UNION ALL SELECT NULL, NULL, NULL, session_id, last_outcome, deposits FROM scoped WHERE deposits <> '{}'`;

/** The advisory lock of a project's fold: folds of one project take turns; a rebuild of it waits for them. */
const FOLD_LOCK = "hashtextextended('analytics-fold/' || $1, 0)";

/** Batches per fold transaction: a backlog is folded a bounded piece at a time (at most 500 events a batch). */
const FOLD_CHUNK = 20;

/** One fold: the project's oldest queued batches up to queue id $2 taken off the queue and folded into the rollup. */
const FOLD_QUEUED = `WITH taken AS (
    DELETE FROM analytics_fold_queue WHERE id IN (SELECT id FROM analytics_fold_queue WHERE project_id = $1 AND id <= $2 ORDER BY id LIMIT ${FOLD_CHUNK})
    RETURNING event_ids),
  queued AS (SELECT e.* FROM analytics_events e WHERE e.id IN (SELECT unnest(event_ids) FROM taken)),
  ${sessionDaysSql('queued').slice('WITH '.length)},
  ${FOLD_DAYS}
  SELECT count(*)::int AS batches FROM taken`;

/**
 * Folds the batches of a project queued when it is called into the rollup, a chunk per transaction; returns how many
 * batches. `wait: false` (the workers' loop) leaves a project that another process is folding to it.
 */
export async function foldPending(db: Db, projectId: string, { wait } = { wait: true }): Promise<number> {
  const [{ last }] = (await db.query('SELECT max(id)::text AS last FROM analytics_fold_queue WHERE project_id = $1', [
    projectId,
  ])) as [{ last: string | null }];
  if (last === null) return 0;
  let folded = 0;
  for (;;) {
    const batches = await db.transaction(async (tx) => {
      const [{ locked }] = await tx.query(
        wait
          ? `SELECT true AS locked, pg_advisory_xact_lock(${FOLD_LOCK})`
          : `SELECT pg_try_advisory_xact_lock(${FOLD_LOCK}) AS locked`,
        [projectId],
      );
      if (!locked) return 0;
      const [row] = await preparedQuery<{ batches: number }[]>(tx, FOLD_QUEUED, [projectId, last]);
      return row.batches;
    });
    folded += batches;
    if (batches < FOLD_CHUNK) return folded;
  }
}

/** The projects with queued batches (for the workers' fold loop). */
export async function projectsToFold(db: Db): Promise<string[]> {
  return (
    (await db.query('SELECT DISTINCT project_id AS "projectId" FROM analytics_fold_queue')) as { projectId: string }[]
  ).map((r) => r.projectId);
}

/**
 * Rebuilds a project's rollup from its raw events, set-based in SQL with the definitions a fold uses (the benchmark
 * does after loading events with INSERT ... SELECT), under the project's fold lock: its queued batches are dropped,
 * and events of batches queued meanwhile are left to their fold.
 */
export async function rebuildFunnelRollup(db: Db, projectId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${FOLD_LOCK})`, [projectId]);
    await tx.query('DELETE FROM analytics_fold_queue WHERE project_id = $1', [projectId]);
    await rebuildTables(
      tx,
      projectId,
      'AND id NOT IN (SELECT unnest(event_ids) FROM analytics_fold_queue WHERE project_id = $1)',
    );
  });
}

/** The rollup tables of one project rebuilt from its raw events, but those `except` leaves to the next fold. */
async function rebuildTables(db: Tx, projectId: string, except: string): Promise<void> {
  const only = `AND project_id = $1 ${except}`;
  await db.query("SET LOCAL work_mem = '256MB'"); // sorting and hashing every session at once
  await db.query('DELETE FROM analytics_funnel_sessions WHERE project_id = $1', [projectId]);
  await db.query('DELETE FROM analytics_funnel_days WHERE project_id = $1', [projectId]);
  await db.query(
    `INSERT INTO analytics_funnel_sessions (project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans)
     ${sessionDaysSql('analytics_events', only)}
     SELECT days.*, count(*) OVER (PARTITION BY project_id, modal, session_id) > 1 FROM days`,
    [projectId],
  );
  await db.query(
    `INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
     SELECT s.project_id, s.modal, c.method, s.day, c.metric, c.key, sum(c.value)
     FROM analytics_funnel_sessions s, LATERAL analytics_funnel_contribution(s.methods, s.started_us, s.completed_us, s.steps, s.outcomes, s.families) c
     WHERE NOT s.spans AND project_id = $1 GROUP BY 1, 2, 3, 4, 5, 6`,
    [projectId],
  );
}

/**
 * Deletes up to `limit` raw analytics events past `days` days of retention (a chunk of a retention run): of whole
 * UTC days before it, and only folded ones (not queued for the rollup). A report of a range that starts within the
 * retention reads raw events only of its first and last day, which are kept, and the rollup for the rest, so it
 * stays exact. A row changed meanwhile is left (its ctid no longer matches). Returns how many.
 */
export async function deleteExpiredEvents(db: Db, days: number, limit: number): Promise<number> {
  // received_at bounds the scan (its index); occurred_at is what reports read.
  const [, deleted]: [unknown, number] = await db.query(
    `DELETE FROM analytics_events WHERE ctid = ANY(ARRAY(SELECT e.ctid FROM analytics_events e, (SELECT date_trunc('day', now() - make_interval(days => $1), 'UTC') AS day) cutoff
      WHERE e.received_at < cutoff.day AND e.occurred_at < cutoff.day
        AND NOT EXISTS (SELECT 1 FROM analytics_fold_queue q WHERE q.project_id = e.project_id AND e.id = ANY(q.event_ids)) LIMIT $2))`,
    [days, limit],
  );
  return deleted;
}
