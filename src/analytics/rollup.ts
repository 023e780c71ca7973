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
 * count is of distinct sessions over exactly the report's range, as the raw computation gives.
 */
export interface SessionDay {
  project_id: string;
  modal: string;
  session_id: string;
  day: string;
  started_us: string;
  completed_us: string | null;
  methods: string[];
  /** step → first opening (epoch µs) */
  steps: Record<string, number>;
  outcomes: Record<string, number>;
  /** `outcome/family` → events */
  families: Record<string, number>;
  last_outcome: string | null;
  last_outcome_us: string | null;
  deposits: string[];
  spans?: boolean;
}

/** The columns of a session-day row as SessionDay has them (bigints as text, the day as YYYY-MM-DD). */
export const SESSION_COLUMNS = 'project_id, modal, session_id, day::text AS day, started_us::text, completed_us::text, methods, steps, outcomes, families, last_outcome, last_outcome_us::text, deposits';

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
const big = (x: string | null) => (x === null ? null : BigInt(x));
const minOf = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : big(a)! <= big(b)! ? a : b);
const sum = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};
const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort(byBytes);

/** One session's rows merged (its events on one day from two batches, or its days in a report's range). */
export function mergeDays(a: SessionDay, b: SessionDay): SessionDay {
  const steps = { ...a.steps };
  for (const [k, t] of Object.entries(b.steps)) steps[k] = Math.min(steps[k] ?? t, t);
  const laterOutcome = a.last_outcome_us === null || (b.last_outcome_us !== null
    && (big(b.last_outcome_us)! > big(a.last_outcome_us)! || (b.last_outcome_us === a.last_outcome_us && byBytes(b.last_outcome!, a.last_outcome!) > 0)));
  return {
    ...a,
    started_us: minOf(a.started_us, b.started_us)!,
    completed_us: minOf(a.completed_us, b.completed_us),
    methods: union(a.methods, b.methods),
    steps,
    outcomes: sum(a.outcomes, b.outcomes),
    families: sum(a.families, b.families),
    last_outcome: laterOutcome ? b.last_outcome : a.last_outcome,
    last_outcome_us: laterOutcome ? b.last_outcome_us : a.last_outcome_us,
    deposits: union(a.deposits, b.deposits),
  };
}

const sessionKey = (d: Pick<SessionDay, 'project_id' | 'modal' | 'session_id'>) => `${d.project_id}\n${d.modal}\n${d.session_id}`;

/** Rows of many sessions merged per session. */
export function mergeSessions(rows: SessionDay[]): SessionDay[] {
  const by = new Map<string, SessionDay>();
  for (const r of rows) {
    const k = sessionKey(r);
    const seen = by.get(k);
    by.set(k, seen ? mergeDays(seen, r) : r);
  }
  return [...by.values()];
}

const RECORD = `project_id uuid, modal text, session_id text, day date, started_us bigint, completed_us bigint, methods text[], steps jsonb, outcomes jsonb,
  families jsonb, last_outcome text, last_outcome_us bigint, deposits text[], spans boolean, sign int`;

/** SQL: the funnel sums of the session rows in jsonb parameter `param`, each counted `sign` times. */
export const contributionsSql = (param: string) =>
  `SELECT r.project_id, r.modal, c.method, r.day, c.metric, c.key, sum(r.sign * c.value) AS value
   FROM jsonb_to_recordset(${param}) AS r(${RECORD}),
        LATERAL analytics_funnel_contribution(r.methods, r.started_us, r.completed_us, r.steps, r.outcomes, r.families) c`;

/**
 * Folds a batch's new session-day rows into the rollup, in the transaction that stored their events. Sessions are
 * locked (advisory, in key order) first, so two batches of one session never both take it for single-day.
 */
export async function applyToRollup(tx: EntityManager, batch: SessionDay[]): Promise<void> {
  const keys = [...new Set(batch.map(sessionKey))].sort(byBytes);
  await tx.query('SELECT count(pg_advisory_xact_lock(hashtextextended(k, 7271))) FROM unnest($1::text[]) WITH ORDINALITY AS u(k, i)', [keys]);
  const triples = keys.map((k) => k.split('\n'));
  const existing: (SessionDay & { spans: boolean })[] = await tx.query(
    `SELECT ${SESSION_COLUMNS}, spans FROM analytics_funnel_sessions WHERE (project_id, modal, session_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]))`,
    [triples.map((t) => t[0]), triples.map((t) => t[1]), triples.map((t) => t[2])],
  );
  const days = new Map<string, Map<string, { old?: SessionDay & { spans: boolean }; now: SessionDay; changed: boolean }>>();
  const session = (d: SessionDay) => days.get(sessionKey(d)) ?? days.set(sessionKey(d), new Map()).get(sessionKey(d))!;
  for (const r of existing) session(r).set(r.day, { old: r, now: r, changed: false });
  for (const r of batch) {
    const at = session(r).get(r.day);
    session(r).set(r.day, at ? { ...at, now: mergeDays(at.now, r), changed: true } : { now: r, changed: true });
  }
  const writes: SessionDay[] = [];
  const deltas: (SessionDay & { sign: number })[] = [];
  for (const perDay of days.values()) {
    const spans = perDay.size > 1;
    for (const { old, now, changed } of perDay.values()) {
      if (!changed && old!.spans === spans) continue;
      writes.push({ ...now, spans });
      if (old && !old.spans) deltas.push({ ...old, sign: -1 });
      if (!spans) deltas.push({ ...now, sign: 1 });
    }
  }
  // The session rows and the sums in one statement (a data-modifying WITH runs whether or not it is read).
  await tx.query(
    `WITH written AS (
       INSERT INTO analytics_funnel_sessions (project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans)
       SELECT project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans
       FROM jsonb_to_recordset($1) AS r(${RECORD})
       ON CONFLICT (project_id, modal, session_id, day) DO UPDATE SET started_us = EXCLUDED.started_us, completed_us = EXCLUDED.completed_us,
         methods = EXCLUDED.methods, steps = EXCLUDED.steps, outcomes = EXCLUDED.outcomes, families = EXCLUDED.families, last_outcome = EXCLUDED.last_outcome,
         last_outcome_us = EXCLUDED.last_outcome_us, deposits = EXCLUDED.deposits, spans = EXCLUDED.spans)
     INSERT INTO analytics_funnel_days (project_id, modal, method, day, metric, key, value)
     SELECT * FROM (${contributionsSql('$2')} GROUP BY 1, 2, 3, 4, 5, 6) d WHERE value <> 0
     ORDER BY 1, 2, 3, 4, 5, 6 -- one lock order for every batch: concurrent batches never deadlock on a day's sums
     ON CONFLICT (project_id, modal, method, day, metric, key) DO UPDATE SET value = analytics_funnel_days.value + EXCLUDED.value`,
    [JSON.stringify(writes), JSON.stringify(deltas)],
  );
}

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
