import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { DataSource } from 'typeorm';
import type { AcceptedEvent } from './validate';

/** An event's identity: its project and its canonical JSON, so a retried batch maps onto the rows it wrote. */
const dedupeKey = (projectId: string | null, data: unknown) => createHash('sha256').update(`${projectId ?? ''}\n${canonicalize(data)}`).digest();

/** One multi-row statement per batch; returns how many rows were new. */
export async function storeEvents(db: DataSource, projectId: string | null, events: AcceptedEvent[]): Promise<number> {
  if (!events.length) return 0;
  const col = <T>(f: (e: AcceptedEvent) => T) => events.map(f);
  const rows = await db.query(
    `INSERT INTO analytics_events (project_id, dedupe_key, session_id, event, modal, step, outcome, reason, reason_family, funding_method, deposit_id, occurred_at, data)
     SELECT $1, * FROM unnest($2::bytea[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::timestamptz[], $13::jsonb[])
     ON CONFLICT (dedupe_key) DO NOTHING RETURNING 1`,
    [
      projectId, col((e) => dedupeKey(projectId, e.data)), col((e) => e.sessionId), col((e) => e.event), col((e) => e.modal), col((e) => e.step), col((e) => e.outcome),
      col((e) => e.reason), col((e) => e.reasonFamily), col((e) => e.fundingMethod), col((e) => e.depositId), col((e) => e.occurredAt), col((e) => JSON.stringify(e.data)),
    ],
  );
  return rows.length;
}

export interface FunnelQuery { projectId: string; from: Date; to: Date; modal: string; fundingMethod?: string }

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

/**
 * The funnel of one modal over a time range, in SQL over the covering index. Step order is the order sessions
 * reach them (mean position of each step's first opening within a session); a session drops off at the last step
 * it opened when it never completed.
 */
export async function funnel(db: DataSource, q: FunnelQuery): Promise<Funnel> {
  const params = [q.projectId, q.modal, q.from, q.to, ...(q.fundingMethod ? [q.fundingMethod] : [])];
  // The funding-method filter is added only when asked for, so the planner can make it a hashed semi-join.
  const scope = `WITH scoped AS (
      SELECT session_id, event, step, outcome, reason_family, deposit_id, occurred_at FROM analytics_events
      WHERE project_id = $1 AND modal = $2 AND occurred_at >= $3 AND occurred_at < $4
      ${q.fundingMethod ? 'AND session_id IN (SELECT session_id FROM analytics_events WHERE project_id = $1 AND modal = $2 AND occurred_at >= $3 AND occurred_at < $4 AND funding_method = $5)' : ''})`;
  // Sorting and hashing a range's sessions wants more than the default 4 MB of work memory: each query gets its own.
  const run = (sql: string) => db.transaction(async (tx) => {
    await tx.query("SET LOCAL work_mem = '64MB'");
    return tx.query(sql, params);
  });
  const [steps, outcomes, deposits] = await Promise.all([
    // Per session: when it started and completed; per session and step: its first opening, numbered from the start
    // (the step's position) and from the end (1 = the last step the session reached).
    run(
      `${scope},
       firsts AS (SELECT session_id, step, min(occurred_at) AS t FROM scoped WHERE event = 'deposit_modal_step_open' GROUP BY 1, 2),
       sessions AS (SELECT session_id, min(occurred_at) AS started, min(occurred_at) FILTER (WHERE outcome = 'completed') AS completed_at FROM scoped GROUP BY 1),
       ranked AS (SELECT step, session_id, row_number() OVER (PARTITION BY session_id ORDER BY t) AS position,
                         row_number() OVER (PARTITION BY session_id ORDER BY t DESC) AS from_end FROM firsts),
       timing AS (SELECT count(*)::int AS completed,
                         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - started))::float AS p50,
                         percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM completed_at - started))::float AS p90
                  FROM sessions WHERE completed_at IS NOT NULL)
       SELECT NULL AS step, 0 AS sessions, 0::float AS position, 0 AS last_here, 0 AS drop_off, row_to_json(timing) AS timing FROM timing
       UNION ALL
       SELECT * FROM (SELECT r.step, count(*)::int, avg(r.position)::float, (count(*) FILTER (WHERE r.from_end = 1))::int,
                             (count(*) FILTER (WHERE r.from_end = 1 AND s.completed_at IS NULL))::int, NULL::json
                      FROM ranked r JOIN sessions s USING (session_id) GROUP BY r.step ORDER BY 3, 1) per_step`,
    ),
    // Sessions per outcome, and events per outcome and reason family.
    run(
      `${scope} SELECT outcome, reason_family AS family, GROUPING(reason_family) = 1 AS whole, count(*)::int AS count, count(DISTINCT session_id)::int AS sessions
       FROM scoped WHERE outcome IS NOT NULL GROUP BY GROUPING SETS ((outcome), (outcome, reason_family)) ORDER BY count DESC, family`,
    ),
    run(
      `${scope},
       seen AS (SELECT deposit_id, (array_agg(session_id))[1] AS session_id FROM scoped WHERE deposit_id IS NOT NULL GROUP BY 1),
       widget AS (SELECT DISTINCT ON (s.deposit_id) s.deposit_id, coalesce(o.outcome, 'none') AS outcome
                  FROM seen s LEFT JOIN scoped o ON o.session_id = s.session_id AND o.outcome IS NOT NULL ORDER BY s.deposit_id, o.occurred_at DESC),
       processed AS (SELECT DISTINCT ON (deposit_id) deposit_id, type FROM webhook_events
                     WHERE project_id = $1 AND deposit_id IN (SELECT deposit_id FROM seen) AND type IN ('deposit-received', 'bridge-started', 'bridge-delayed', 'deposit-delayed', 'bridge-complete', 'bridge-failed', 'deposit-rejected', 'deposit-refunded')
                     ORDER BY deposit_id, seq DESC)
       SELECT w.outcome AS widget,
              CASE WHEN p.type IS NULL THEN 'unknown' WHEN p.type = 'bridge-complete' THEN 'completed' WHEN p.type = 'deposit-refunded' THEN 'refunded'
                   WHEN p.type IN ('bridge-failed', 'deposit-rejected') THEN 'failed' ELSE 'processing' END AS processed,
              count(*)::int AS count
       FROM widget w LEFT JOIN processed p USING (deposit_id) GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  ]);
  type StepRow = { step: string | null; sessions: number; last_here: number; drop_off: number; timing: { completed: number; p50: number | null; p90: number | null } | null };
  type OutcomeRow = { outcome: string; family: string | null; whole: boolean; count: number; sessions: number };
  const [timingRow, ...perStep] = steps as StepRow[];
  const timing = timingRow.timing!;
  // Every session that entered the funnel has exactly one last step.
  const entered = perStep.reduce((n, r) => n + r.last_here, 0);
  const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);
  const families = (outcome: string) =>
    (outcomes as OutcomeRow[]).filter((r) => !r.whole && r.outcome === outcome && r.family !== null).map((r) => ({ family: r.family!, count: r.count }));
  return {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    modal: q.modal,
    fundingMethod: q.fundingMethod ?? null,
    sessions: entered,
    steps: perStep.map((s) => ({ step: s.step!, sessions: s.sessions, conversion: entered ? round(s.sessions / entered)! : 0, dropOff: s.drop_off })),
    outcomes: Object.fromEntries((outcomes as OutcomeRow[]).filter((r) => r.whole).map((r) => [r.outcome, r.sessions])),
    failures: families('failed'),
    friction: families('friction'),
    timeToComplete: { sessions: timing.completed, p50Seconds: round(timing.p50), p90Seconds: round(timing.p90) },
    deposits: {
      observed: deposits.reduce((n: number, d: { count: number }) => n + d.count, 0),
      byOutcome: deposits.map((d: { widget: string; processed: string; count: number }) => ({ widget: d.widget, processed: d.processed, count: d.count })),
    },
  };
}
