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

/** Joins the parts of a composite key with NUL, which PostgreSQL text never holds. */
export const SEP = '\u0000';
const sessionKey = (d: Pick<SessionDay, 'project_id' | 'modal' | 'session_id'>) => [d.project_id, d.modal, d.session_id].join(SEP);

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
  families jsonb, last_outcome text, last_outcome_us bigint, deposits text[], spans boolean`;

/** Funnel sums keyed by method, metric and key (sumKey). */
export type Sums = Map<string, bigint>;
export const sumKey = (method: string, metric: string, key: string) => [method, metric, key].join(SEP);

/**
 * One session's contribution to the funnel's sums, added `sign` times into `into` under '' and each of its funding
 * methods. The same definition as the SQL function analytics_funnel_contribution that rebuilds use
 * (test/integration/funnel-rollup.test.ts holds the two equal): steps ranked by first opening, then by name.
 */
export function contribute(into: Sums, s: SessionDay, sign: bigint, methods: string[] = ['', ...s.methods]): void {
  const parts: [string, string, bigint][] = [];
  const ranked = Object.entries(s.steps).sort(([a, x], [b, y]) => x - y || byBytes(a, b));
  if (ranked.length) parts.push(['entered', '', 1n]);
  ranked.forEach(([step], i) => {
    parts.push(['step_sessions', step, 1n], ['step_position', step, BigInt(i + 1)]);
    if (i === ranked.length - 1) {
      parts.push(['step_last', step, 1n]);
      if (s.completed_us === null) parts.push(['step_drop', step, 1n]);
    }
  });
  if (s.completed_us !== null) parts.push(['duration_us', (BigInt(s.completed_us) - BigInt(s.started_us)).toString(), 1n]);
  for (const [o, n] of Object.entries(s.outcomes)) parts.push(['outcome_events', o, BigInt(n)], ['outcome_sessions', o, 1n]);
  for (const [f, n] of Object.entries(s.families)) parts.push(['family_events', f, BigInt(n)]);
  for (const m of methods) {
    for (const [metric, key, value] of parts) {
      const k = sumKey(m, metric, key);
      into.set(k, (into.get(k) ?? 0n) + sign * value);
    }
  }
}

/**
 * SQL: the advisory lock key of a session (project_id, modal, session_id in scope). A batch takes its sessions' locks
 * in the order of these keys before it reads their rows, so two batches of one session never both take it for
 * single-day; two sessions that share a key only wait for each other.
 */
export const SESSION_LOCK = "hashtextextended(project_id::text || '/' || modal || '/' || session_id, 7271)";

/**
 * Folds a batch's new session-day rows into the rollup, in the transaction that stored their events, once their
 * sessions are locked (SESSION_LOCK). The contributions are computed here (`contribute`) and only their sums written.
 */
export async function applyToRollup(tx: EntityManager, batch: SessionDay[]): Promise<void> {
  const keys = [...new Set(batch.map(sessionKey))].sort(byBytes);
  const triples = keys.map((k) => k.split(SEP));
  const [projects, modals, sessions] = [0, 1, 2].map((i) => triples.map((t) => t[i]));
  const existing: (SessionDay & { spans: boolean })[] = await tx.query(
    `SELECT ${SESSION_COLUMNS}, spans FROM analytics_funnel_sessions WHERE (project_id, modal, session_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]))`,
    [projects, modals, sessions],
  );
  const days = new Map<string, Map<string, { old?: SessionDay & { spans: boolean }; now: SessionDay; changed: boolean }>>();
  const session = (d: SessionDay) => days.get(sessionKey(d)) ?? days.set(sessionKey(d), new Map()).get(sessionKey(d))!;
  for (const r of existing) session(r).set(r.day, { old: r, now: r, changed: false });
  for (const r of batch) {
    const at = session(r).get(r.day);
    session(r).set(r.day, at ? { ...at, now: mergeDays(at.now, r), changed: true } : { now: r, changed: true });
  }
  const writes: SessionDay[] = [];
  const deltas = new Map<string, Sums>(); // per modal and day
  const onDay = (s: SessionDay) => {
    const k = [s.modal, s.day].join(SEP);
    return deltas.get(k) ?? deltas.set(k, new Map()).get(k)!;
  };
  for (const perDay of days.values()) {
    const spans = perDay.size > 1;
    for (const { old, now, changed } of perDay.values()) {
      if (!changed && old!.spans === spans) continue;
      writes.push({ ...now, spans });
      if (old && !old.spans) contribute(onDay(old), old, -1n);
      if (!spans) contribute(onDay(now), now, 1n);
    }
  }
  const sums = [...deltas].flatMap(([at, m]) => [...m].filter(([, v]) => v !== 0n).map(([k, v]) => [...at.split(SEP), ...k.split(SEP), v.toString()]));
  const col = (i: number) => sums.map((r) => r[i]);
  // The session rows and the sums in one statement (a data-modifying WITH runs whether or not it is read); a batch
  // holds one project, and the sums are taken in key order so concurrent batches never deadlock on a day's rows.
  await tx.query(
    `WITH written AS (
       INSERT INTO analytics_funnel_sessions (project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans)
       SELECT project_id, modal, session_id, day, started_us, completed_us, methods, steps, outcomes, families, last_outcome, last_outcome_us, deposits, spans
       FROM jsonb_to_recordset($1) AS r(${RECORD})
       ON CONFLICT (project_id, modal, session_id, day) DO UPDATE SET started_us = EXCLUDED.started_us, completed_us = EXCLUDED.completed_us,
         methods = EXCLUDED.methods, steps = EXCLUDED.steps, outcomes = EXCLUDED.outcomes, families = EXCLUDED.families, last_outcome = EXCLUDED.last_outcome,
         last_outcome_us = EXCLUDED.last_outcome_us, deposits = EXCLUDED.deposits, spans = EXCLUDED.spans)
     INSERT INTO analytics_funnel_days (project_id, modal, day, method, metric, key, value)
     SELECT $2, * FROM unnest($3::text[], $4::date[], $5::text[], $6::text[], $7::text[], $8::bigint[]) AS u(modal, day, method, metric, key, value)
     ORDER BY modal, method, day, metric, key
     ON CONFLICT (project_id, modal, method, day, metric, key) DO UPDATE SET value = analytics_funnel_days.value + EXCLUDED.value`,
    [JSON.stringify(writes), batch[0].project_id, col(0), col(1), col(2), col(3), col(4), col(5)],
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
