import { hash } from 'node:crypto';
import type { Db } from '../db/types';
import type { AcceptedEvent } from './validate';
import { canonicalJson } from './canonical';
import { preparedQuery } from '../db/prepared';
import { byBytes, foldPending, mergedSessionsSql, sessionDaysSql } from './rollup-store';

/** An event's identity: its project and its canonical JSON, so a retried batch maps onto the rows it wrote. */
const dedupeKey = (projectId: string | null, canonical: string) =>
  hash('sha256', `${projectId ?? ''}\n${canonical}`, 'buffer');

/**
 * A batch stored in one statement: the multi-row insert (a retried batch inserts nothing twice), and the ids of its
 * new events that a funnel counts queued for the rollup's fold (src/analytics/rollup-store.ts). Returns how many were new.
 */
const STORE_BATCH = `WITH ins AS (
    INSERT INTO analytics_events (project_id, dedupe_key, session_id, event, modal, step, outcome, reason, reason_family, funding_method, deposit_id, occurred_at, data)
    SELECT $1, * FROM unnest($2::bytea[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::jsonb[])
    ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, modal),
  queued AS (
    INSERT INTO analytics_fold_queue (project_id, event_ids)
    SELECT $1, array_agg(id) FROM ins WHERE modal IS NOT NULL HAVING $1::uuid IS NOT NULL AND count(*) > 0)
  SELECT count(*)::int AS stored FROM ins`;

export async function storeEvents(db: Db, projectId: string | null, events: AcceptedEvent[]): Promise<number> {
  if (!events.length) return 0;
  const col = <T>(f: (e: AcceptedEvent) => T) => events.map(f);
  // One serialization per event: the canonical text is both hashed and stored (jsonb keeps no key order of its own).
  const canonical = col((e) => canonicalJson(e.data)!);
  const [{ stored }] = await preparedQuery<{ stored: number }[]>(db, STORE_BATCH, [
    projectId,
    canonical.map((text) => dedupeKey(projectId, text)),
    col((e) => e.sessionId),
    col((e) => e.event),
    col((e) => e.modal),
    col((e) => e.step),
    col((e) => e.outcome),
    col((e) => e.reason),
    col((e) => e.reasonFamily),
    col((e) => e.fundingMethod),
    col((e) => e.depositId),
    col((e) => e.occurredAt),
    canonical,
  ]);
  return stored;
}

/** The stored events sent without an ingest token. */
export async function unattributedRows(db: Db): Promise<number> {
  const [{ n }]: { n: string }[] = await db.query(
    'SELECT count(*)::bigint AS n FROM analytics_events WHERE project_id IS NULL',
  );
  return Number(n);
}

export interface FunnelQuery {
  projectId: string;
  from: Date;
  to: Date;
  modal: string;
  fundingMethod?: string;
}

export interface Funnel {
  from: string;
  to: string;
  modal: string;
  fundingMethod: string | null;
  /** sessions that opened at least one step */
  sessions: number;
  steps: { step: string; sessions: number; conversion: number; dropOff: number }[];
  outcomes: Record<string, number>;
  failures: { family: string; count: number }[];
  friction: { family: string; count: number }[];
  timeToComplete: { sessions: number; p50Seconds: number | null; p90Seconds: number | null };
  /** widget outcome (what the modal saw) beside the processed outcome (what the deposit processor reported) */
  deposits: { observed: number; byOutcome: { widget: string; processed: string; count: number }[] };
}

type ByOutcome = Funnel['deposits']['byOutcome'];
const sortOutcomes = (rows: ByOutcome): ByOutcome =>
  rows
    .map((d) => ({ widget: d.widget, processed: d.processed, count: d.count }))
    .sort((a, b) => byBytes(a.widget, b.widget) || byBytes(a.processed, b.processed));

/**
 * The funnel of one modal over a time range computed from the raw events, the definition the rollup is held to
 * (test/integration/funnel-rollup.test.ts). Step order is the order sessions reach them (mean position of each
 * step's first opening within a session, ties by name); a session drops off at the last step it opened when it
 * never completed.
 */
export async function funnelFromRaw(db: Db, q: FunnelQuery): Promise<Funnel> {
  const params = [q.projectId, q.modal, q.from, q.to, ...(q.fundingMethod ? [q.fundingMethod] : [])];
  // The funding-method filter is added only when asked for, so the planner can make it a hashed semi-join.
  const scope = `WITH scoped AS (
      SELECT session_id, event, step, outcome, reason_family, deposit_id, occurred_at FROM analytics_events
      WHERE project_id = $1 AND modal = $2 AND occurred_at >= $3 AND occurred_at < $4
      ${q.fundingMethod ? 'AND session_id IN (SELECT session_id FROM analytics_events WHERE project_id = $1 AND modal = $2 AND occurred_at >= $3 AND occurred_at < $4 AND funding_method = $5)' : ''})`;
  // Sorting and hashing a range's sessions wants more than the default 4 MB of work memory: each query gets its own.
  const run = (sql: string) =>
    db.transaction(async (tx) => {
      await tx.query("SET LOCAL work_mem = '64MB'");
      return tx.query(sql, params);
    });
  const [steps, outcomes, deposits] = await Promise.all([
    // Per session: when it started and completed; per session and step: its first opening, numbered from the start
    // (the step's position) and from the end (1 = the last step the session reached).
    run(
      `${scope},
       firsts AS (SELECT session_id, step, min(occurred_at) AS t FROM scoped WHERE event = 'deposit_modal_step_open' AND step IS NOT NULL GROUP BY 1, 2),
       sessions AS (SELECT session_id, min(occurred_at) AS started, min(occurred_at) FILTER (WHERE outcome = 'completed') AS completed_at FROM scoped GROUP BY 1),
       ranked AS (SELECT step, session_id, row_number() OVER (PARTITION BY session_id ORDER BY t, step COLLATE "C") AS position,
                         row_number() OVER (PARTITION BY session_id ORDER BY t DESC, step COLLATE "C" DESC) AS from_end FROM firsts),
       timing AS (SELECT count(*)::int AS completed,
                         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - started))::float AS p50,
                         percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - started))::float AS p90
                  FROM sessions WHERE completed_at IS NOT NULL)
       SELECT NULL AS step, 0 AS sessions, 0::float AS position, 0 AS "lastHere", 0 AS "dropOff", row_to_json(timing) AS timing FROM timing
       UNION ALL
       SELECT * FROM (SELECT r.step, count(*)::int, avg(r.position)::float, (count(*) FILTER (WHERE r.from_end = 1))::int,
                             (count(*) FILTER (WHERE r.from_end = 1 AND s.completed_at IS NULL))::int, NULL::json
                      FROM ranked r JOIN sessions s USING (session_id) GROUP BY r.step ORDER BY 3, r.step COLLATE "C") per_step`,
    ),
    // Sessions per outcome, and events per outcome and reason family.
    run(
      `${scope} SELECT outcome, reason_family AS family, GROUPING(reason_family) = 1 AS whole, count(*)::int AS count, count(DISTINCT session_id)::int AS sessions
       FROM scoped WHERE outcome IS NOT NULL GROUP BY GROUPING SETS ((outcome), (outcome, reason_family)) ORDER BY count DESC, reason_family COLLATE "C"`,
    ),
    run(
      `${scope},
       seen AS (SELECT deposit_id, min(session_id COLLATE "C") AS session_id FROM scoped WHERE deposit_id IS NOT NULL GROUP BY 1),
       widget AS (SELECT DISTINCT ON (s.deposit_id) s.deposit_id, coalesce(o.outcome, 'none') AS outcome
                  FROM seen s LEFT JOIN scoped o ON o.session_id = s.session_id AND o.outcome IS NOT NULL ORDER BY s.deposit_id, o.occurred_at DESC, o.outcome COLLATE "C" DESC),
       processed AS (SELECT DISTINCT ON (deposit_id) deposit_id, type FROM webhook_events
                     WHERE project_id = $1 AND deposit_id IN (SELECT deposit_id FROM seen) AND type IN ('deposit-received', 'bridge-started', 'bridge-delayed', 'deposit-delayed', 'bridge-complete', 'bridge-failed', 'deposit-rejected', 'deposit-refunded', 'deposit-voided')
                     ORDER BY deposit_id, seq DESC)
       SELECT w.outcome AS widget,
              CASE WHEN p.type IS NULL THEN 'unknown' WHEN p.type = 'bridge-complete' THEN 'completed' WHEN p.type = 'deposit-refunded' THEN 'refunded'
                   WHEN p.type IN ('bridge-failed', 'deposit-rejected', 'deposit-voided') THEN 'failed' ELSE 'processing' END AS processed,
              count(*)::int AS count
       FROM widget w LEFT JOIN processed p USING (deposit_id) GROUP BY 1, 2`,
    ),
  ]);
  type StepRow = {
    step: string | null;
    sessions: number;
    lastHere: number;
    dropOff: number;
    timing: { completed: number; p50: number | null; p90: number | null } | null;
  };
  type OutcomeRow = { outcome: string; family: string | null; whole: boolean; count: number; sessions: number };
  const [timingRow, ...perStep] = steps as StepRow[];
  const timing = timingRow.timing!;
  // Every session that entered the funnel has exactly one last step.
  const entered = perStep.reduce((n, r) => n + r.lastHere, 0);
  const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
  const families = (outcome: string) =>
    (outcomes as OutcomeRow[])
      .filter((r) => !r.whole && r.outcome === outcome && r.family !== null)
      .map((r) => ({ family: r.family!, count: r.count }));
  return report(q, {
    sessions: entered,
    steps: perStep.map((s) => ({
      step: s.step!,
      sessions: s.sessions,
      conversion: entered ? round(s.sessions / entered)! : 0,
      dropOff: s.dropOff,
    })),
    outcomes: Object.fromEntries((outcomes as OutcomeRow[]).filter((r) => r.whole).map((r) => [r.outcome, r.sessions])),
    failures: families('failed'),
    friction: families('friction'),
    timeToComplete: { sessions: timing.completed, p50Seconds: round(timing.p50), p90Seconds: round(timing.p90) },
    deposits: {
      observed: deposits.reduce((n: number, d: { count: number }) => n + d.count, 0),
      byOutcome: sortOutcomes(deposits),
    },
  });
}

/** A report over the window `q`: what a computation (from the raw events or the rollup) found in it. */
const report = (q: FunnelQuery, found: Omit<Funnel, 'from' | 'to' | 'modal' | 'fundingMethod'>): Funnel => ({
  from: q.from.toISOString(),
  to: q.to.toISOString(),
  modal: q.modal,
  fundingMethod: q.fundingMethod ?? null,
  ...found,
});

const PROCESSED_TYPES = [
  'deposit-received',
  'bridge-started',
  'bridge-delayed',
  'deposit-delayed',
  'bridge-complete',
  'bridge-failed',
  'deposit-rejected',
  'deposit-refunded',
  'deposit-voided',
];
const processedAs = (type: string | undefined) =>
  type === undefined
    ? 'unknown'
    : type === 'bridge-complete'
      ? 'completed'
      : type === 'deposit-refunded'
        ? 'refunded'
        : type === 'bridge-failed' || type === 'deposit-rejected' || type === 'deposit-voided'
          ? 'failed'
          : 'processing';

/**
 * percentile_cont as PostgreSQL computes it (float8 interpolation between the two nearest rows), over a multiset
 * given as (value, count) pairs: the rows are never spelled out, so the cost grows with the distinct values, not
 * with the sessions.
 */
function percentileCont(counts: [value: number, count: number][], total: number, p: number): number | null {
  if (!total) return null;
  const at = p * (total - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  // The value of row i (0-based) in ascending order.
  const row = (i: number) => {
    let seen = 0;
    for (const [value, count] of counts) if ((seen += count) > i) return value;
    throw new Error(`row ${i} of ${total}`);
  };
  return lo === hi ? row(lo) : row(lo) + (row(hi) - row(lo)) * (at - lo);
}

const DAY_MS = 86_400_000;

/**
 * The funnel from the rollup (src/analytics/rollup-store.ts), equal to funnelFromRaw for any range: the whole UTC days
 * inside the range are read from the per-day sums and from the rows of sessions that span days; a partial day at
 * either end is computed from the raw events (so its cost grows with the events of that part of a day) unless the
 * rest of that day holds no event of the modal (a range that ends now), when it is read as a whole day; sessions
 * seen in several of those parts are merged before they are counted. The deposits section joins the deposits that
 * the range's sessions saw to the processor's webhook events as they are now. The project's queued batches are
 * folded first, so the report counts every event stored before it began.
 */
export async function funnel(db: Db, q: FunnelQuery): Promise<Funnel> {
  await foldPending(db, q.projectId);
  // A partial day counts as whole when the part outside the range holds no event of the modal (a range ending now).
  const empty = async (from: number, to: number) =>
    from >= to ||
    !(
      await db.query(
        'SELECT 1 FROM analytics_events WHERE project_id = $1 AND modal = $2 AND occurred_at >= $3 AND occurred_at < $4 LIMIT 1',
        [q.projectId, q.modal, new Date(from), new Date(to)],
      )
    ).length;
  const dayStart = Math.floor(q.from.getTime() / DAY_MS) * DAY_MS;
  const dayEnd = Math.ceil(q.to.getTime() / DAY_MS) * DAY_MS;
  const [fromWhole, toWhole] = await Promise.all([empty(dayStart, q.from.getTime()), empty(q.to.getTime(), dayEnd)]);
  const firstWhole = fromWhole ? dayStart : dayStart + DAY_MS;
  const endWhole = toWhole ? dayEnd : dayEnd - DAY_MS;
  const whole = firstWhole < endWhole;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // The raw parts: before the first whole day and after the last (all of it when the range holds no whole day).
  const edges = (
    whole
      ? [
          [q.from, new Date(firstWhole)],
          [new Date(endWhole), q.to],
        ]
      : [[q.from, q.to]]
  ).filter(([a, b]) => a < b);
  const method = q.fundingMethod ?? '';
  // The sessions merged at read time: those that span days inside the whole days, and those of the partial days.
  const wholeDays = [day(firstWhole), day(endWhole)];
  const mergedRows = [
    ...(whole
      ? [
          'SELECT f AS r FROM analytics_funnel_sessions f WHERE project_id = $1 AND modal = $2 AND spans AND day >= $4::date AND day < $5::date',
        ]
      : []),
    ...(edges.length ? ['SELECT ROW(days.*, false)::analytics_funnel_sessions AS r FROM days'] : []),
  ];
  const edgeParams = edges.flat();
  const at = 4 + (whole ? 2 : 0);
  type MergedRow = {
    metric: string | null;
    key: string;
    value: string;
    sessionId: string;
    lastOutcome: string | null;
    deposits: string[];
  };
  type Deposited = Pick<MergedRow, 'sessionId' | 'lastOutcome' | 'deposits'>;
  const [sums, merged, deposited] = (await Promise.all([
    whole
      ? db.query(
          `SELECT metric, key, sum(value)::text AS value FROM analytics_funnel_days
         WHERE project_id = $1 AND modal = $2 AND method = $3 AND day >= $4::date AND day < $5::date GROUP BY 1, 2`,
          [q.projectId, q.modal, method, ...wholeDays],
        )
      : [],
    mergedRows.length
      ? db.query(
          `${
            edges.length
              ? `${sessionDaysSql('analytics_events', `AND project_id = $1 AND modal = $2 AND (${edges.map((_, i) => `(occurred_at >= $${at + 2 * i} AND occurred_at < $${at + 1 + 2 * i})`).join(' OR ')})`)},`
              : 'WITH'
          } ${mergedSessionsSql(mergedRows.join(' UNION ALL '))}`,
          [q.projectId, q.modal, method, ...(whole ? wholeDays : []), ...edgeParams],
        )
      : [],
    whole
      ? db.query(
          `SELECT session_id AS "sessionId", last_outcome AS "lastOutcome", deposits FROM analytics_funnel_sessions
                  WHERE project_id = $1 AND modal = $2 AND NOT spans AND deposits <> '{}' AND day >= $4::date AND day < $5::date AND ($3 = '' OR $3 = ANY(methods))`,
          [q.projectId, q.modal, method, ...wholeDays],
        )
      : [],
  ])) as [{ metric: string; key: string; value: string }[], MergedRow[], Deposited[]];

  const byMetric = new Map<string, Map<string, bigint>>();
  for (const r of [...sums, ...merged]) {
    if (r.metric === null) continue;
    const m = byMetric.get(r.metric) ?? byMetric.set(r.metric, new Map()).get(r.metric)!;
    m.set(r.key, (m.get(r.key) ?? 0n) + BigInt(r.value));
  }
  const metric = (name: string) => byMetric.get(name) ?? new Map<string, bigint>();
  const entered = Number(metric('entered').get('') ?? 0n);
  const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
  const stepSessions = [...metric('step_sessions')].filter(([, n]) => n > 0n);
  const position = (step: string, n: bigint) => Number(metric('step_position').get(step) ?? 0n) / Number(n);
  const steps = stepSessions
    .map(([step, n]) => ({ step, n, at: position(step, n) }))
    .sort((a, b) => a.at - b.at || byBytes(a.step, b.step))
    .map(({ step, n }) => ({
      step,
      sessions: Number(n),
      conversion: entered ? round(Number(n) / entered)! : 0,
      dropOff: Number(metric('step_drop').get(step) ?? 0n),
    }));
  const durations = [...metric('duration_us')]
    .filter(([, n]) => n > 0n)
    .map(([us, n]): [number, number] => [Number(us) / 1e6, Number(n)])
    .sort(([a], [b]) => a - b);
  const completed = durations.reduce((sum, [, n]) => sum + n, 0);
  const outcomeEvents = [...metric('outcome_events')]
    .filter(([, n]) => n > 0n)
    .sort(([a, x], [b, y]) => (x === y ? byBytes(a, b) : x > y ? -1 : 1));
  const families = (outcome: string) =>
    [...metric('family_events')]
      .filter(([k, n]) => n > 0n && k.startsWith(`${outcome}/`))
      .map(([k, n]) => ({ family: k.slice(outcome.length + 1), count: Number(n) }))
      .sort((a, b) => b.count - a.count || byBytes(a.family, b.family));

  // Deposits: each seen by the first of its sessions (byte order) in scope; the widget outcome is that session's last.
  const bySession = new Map<string, Deposited>();
  for (const s of [...deposited, ...merged.filter((r) => r.metric === null)]) bySession.set(s.sessionId, s);
  const seen = new Map<string, Deposited>();
  for (const s of [...bySession.values()].sort((a, b) => byBytes(a.sessionId, b.sessionId)))
    for (const d of s.deposits) if (!seen.has(d)) seen.set(d, s);
  const processed = new Map<string, string>(
    seen.size
      ? (
          await db.query(
            `SELECT DISTINCT ON (deposit_id) deposit_id AS "depositId", type FROM webhook_events WHERE project_id = $1 AND deposit_id = ANY($2::text[]) AND type = ANY($3::text[]) ORDER BY deposit_id, seq DESC`,
            [q.projectId, [...seen.keys()], PROCESSED_TYPES],
          )
        ).map((r: { depositId: string; type: string }) => [r.depositId, r.type])
      : [],
  );
  const pairs = new Map<string, ByOutcome[number]>();
  for (const [depositId, s] of seen) {
    const widget = s.lastOutcome ?? 'none';
    const kind = processedAs(processed.get(depositId));
    const at =
      pairs.get(`${widget}\n${kind}`) ??
      pairs.set(`${widget}\n${kind}`, { widget, processed: kind, count: 0 }).get(`${widget}\n${kind}`)!;
    at.count++;
  }
  return report(q, {
    sessions: entered,
    steps,
    outcomes: Object.fromEntries(outcomeEvents.map(([o]) => [o, Number(metric('outcome_sessions').get(o) ?? 0n)])),
    failures: families('failed'),
    friction: families('friction'),
    timeToComplete: {
      sessions: completed,
      p50Seconds: round(percentileCont(durations, completed, 0.5)),
      p90Seconds: round(percentileCont(durations, completed, 0.9)),
    },
    deposits: { observed: seen.size, byOutcome: sortOutcomes([...pairs.values()]) },
  });
}
