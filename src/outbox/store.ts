import type { Db, Tx } from '../db/types';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import type * as keys from '../../workflows/contracts/search-attributes';
import { currentTraceContext, type TraceContext } from '../tracing/context';

/** A workflow start to perform after the transaction that recorded it (src/outbox/outbox.ts). */
export interface QueuedStart {
  workflowId: string;
  workflowType: string;
  args: unknown[];
  searchAttributes: Partial<Record<keyof typeof keys, string | string[]>>;
  summary: string;
  /**
   * Epoch ms before which the workflow has nothing to do unless it is signalled: it starts with a Temporal start
   * delay until then, so its start costs Temporal what a bare start does and no worker runs it yet. Its signals
   * must carry this start (`QueuedSignal.start`): a plain signal would wait out the delay.
   */
  delayUntil?: number;
  /** the trace its row was recorded in, as the sweeper reads it back (the recording process continues its own) */
  traceContext?: TraceContext | null;
}

/**
 * `start`: the workflow's own start, sent with the signal as signal-with-start, which wakes a workflow waiting out
 * its start delay (or starts one whose start is still queued).
 */
export interface QueuedSignal {
  id: string;
  workflowId: string;
  signal: string;
  payload: unknown;
  start?: QueuedStart;
  awaiting?: AwaitedOwner;
  /** as QueuedStart's */
  traceContext?: TraceContext | null;
}

/**
 * A lifecycle event for a nonce whose intent or bundle is not recorded (yet): its submit may not have committed. The
 * row is kept and its owner looked up at each attempt (`OutboxOptions.owners`) until `deadAfter` (epoch ms), then
 * dead-lettered, so events for nonces that never become lifecycles do not live forever.
 */
export interface AwaitedOwner {
  nonce: string;
  deadAfter: number;
}

/** Where a signal waits for an owner that is not recorded yet (a name for operators: no such workflow exists). */
export const awaitingWorkflowId = (nonce: string) => `awaiting-owner-${nonce}`;

/**
 * The insert of a queued start's row, with its parameters numbered from `first`: a store may run it as a WITH item of
 * its own statement (one round trip for its row and the start), as the intent's submit does.
 */
export function queuedStartInsert(start: QueuedStart, first: number): { sql: string; params: unknown[] } {
  const params = [
    start.workflowId,
    start.workflowType,
    JSON.stringify(start.args),
    start.searchAttributes,
    start.summary,
    start.delayUntil ? new Date(start.delayUntil) : null,
    currentTraceContext(),
  ];
  const values = params.map((_, i) => `$${first + i}`).join(', ');
  return {
    sql: `INSERT INTO workflow_outbox (workflow_id, workflow_type, args, search_attributes, summary, delay_until, trace_context) VALUES (${values}) ON CONFLICT (workflow_id) DO NOTHING`,
    params,
  };
}

export async function queueStart(tx: Tx, start: QueuedStart): Promise<void> {
  const { sql, params } = queuedStartInsert(start, 1);
  await preparedQuery(tx, sql, params);
}

/** Whether a workflow's start is still queued (not performed yet, or its process died before performing it). */
export async function isStartQueued(db: Db, workflowId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM workflow_outbox WHERE workflow_id = $1', [workflowId])).length > 0;
}

/** Multi-row: one statement whatever the batch size. */
export async function queueSignals(tx: Tx, signals: Omit<QueuedSignal, 'id'>[]): Promise<QueuedSignal[]> {
  if (!signals.length) return [];
  const rows: { id: string }[] = await tx.query(
    `INSERT INTO signal_outbox (workflow_id, signal, payload, start, nonce, dead_after, trace_context)
     SELECT *, $7::jsonb FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::numeric[], $6::timestamptz[]) RETURNING id`,
    [
      signals.map((s) => s.workflowId),
      signals.map((s) => s.signal),
      signals.map((s) => JSON.stringify(s.payload)),
      signals.map((s) => (s.start ? JSON.stringify(s.start) : null)),
      signals.map((s) => s.awaiting?.nonce ?? null),
      signals.map((s) => (s.awaiting ? new Date(s.awaiting.deadAfter) : null)),
      currentTraceContext(),
    ],
  );
  return signals.map((s, i) => ({ ...s, id: rows[i].id }));
}

/** The outbox's tables, and the key each row is named by. */
export type OutboxTable = { table: 'signal_outbox'; key: 'id' } | { table: 'workflow_outbox'; key: 'workflow_id' };

/** Deletes the rows of performed starts. */
export async function clearStarts(db: Db, workflowIds: string[]): Promise<void> {
  await preparedQuery(
    db,
    `DELETE FROM workflow_outbox USING ${WITHOUT_FLUSH_WAIT} WHERE workflow_id = ANY($1::text[])`,
    [workflowIds],
  );
}

/** Deletes the rows of settled signals. */
export async function clearSignals(db: Db, ids: string[]): Promise<void> {
  await preparedQuery(db, `DELETE FROM signal_outbox USING ${WITHOUT_FLUSH_WAIT} WHERE id = ANY($1::bigint[])`, [ids]);
}

/**
 * Records a failed attempt at a pending row: dead-lettered when `kind` is final, or refused for the `maxAttempts`th
 * time; else due again after `2^attempts` seconds (at most `maxWaitSeconds`) when counted, or in a second.
 */
export async function recordFailure(
  db: Db,
  { table, key }: OutboxTable,
  value: string,
  failure: { message: string; counted: boolean; kind: string; maxAttempts: number; maxWaitSeconds: number },
): Promise<void> {
  await db.query(
    `UPDATE ${table} SET attempts = attempts + $3::int, last_error = $2,
         status = CASE WHEN $4 = 'final' OR ($4 = 'refused' AND attempts + 1 >= $5) THEN 'dead' ELSE 'pending' END,
         retry_at = now() + make_interval(secs => CASE WHEN $3::int = 0 THEN 1 ELSE least(power(2, attempts), $6) END)
       WHERE ${key} = $1 AND status = 'pending'`,
    [value, failure.message, failure.counted ? 1 : 0, failure.kind, failure.maxAttempts, failure.maxWaitSeconds],
  );
}

/** Pending rows whose attempt is due and older than `$1` seconds (their own request had time to perform them). */
const DUE = "status = 'pending' AND retry_at <= now() AND created_at < now() - make_interval(secs => $1)";

async function queuedStarts(db: Db, where: string, params: unknown[]): Promise<QueuedStart[]> {
  const rows: {
    workflowId: string;
    workflowType: string;
    args: unknown[];
    searchAttributes: QueuedStart['searchAttributes'];
    summary: string;
    delayUntil: Date | null;
    traceContext: TraceContext | null;
  }[] = await db.query(
    `SELECT workflow_id AS "workflowId", workflow_type AS "workflowType", args, search_attributes AS "searchAttributes", summary, delay_until AS "delayUntil", trace_context AS "traceContext" FROM workflow_outbox WHERE ${where}`,
    params,
  );
  return rows.map((r) => ({
    workflowId: r.workflowId,
    workflowType: r.workflowType,
    args: r.args,
    searchAttributes: r.searchAttributes,
    summary: r.summary,
    ...(r.delayUntil ? { delayUntil: r.delayUntil.getTime() } : {}),
    traceContext: r.traceContext,
  }));
}

/** A workflow's queued start, if its row is still there. */
export async function queuedStart(db: Db, workflowId: string): Promise<QueuedStart | undefined> {
  return (await queuedStarts(db, 'workflow_id = $1', [workflowId]))[0];
}

/** The sweeper's starts: due ones past the grace, in the order they came due. */
export function dueStarts(db: Db, graceSeconds: number, limit: number): Promise<QueuedStart[]> {
  return queuedStarts(db, `${DUE} ORDER BY retry_at, created_at LIMIT $2`, [graceSeconds, limit]);
}

/** The sweeper's signals: due ones past the grace, those awaiting their owner or the others, in the order they came due. */
export async function dueSignals(
  db: Db,
  graceSeconds: number,
  awaiting: boolean,
  limit: number,
): Promise<QueuedSignal[]> {
  const rows: {
    id: string;
    workflowId: string;
    signal: string;
    payload: unknown;
    start: QueuedStart | null;
    nonce: string | null;
    deadAfter: Date | null;
    traceContext: TraceContext | null;
  }[] = await db.query(
    `SELECT id, workflow_id AS "workflowId", signal, payload, start, nonce::text, dead_after AS "deadAfter", trace_context AS "traceContext" FROM signal_outbox
       WHERE ${DUE} AND nonce IS ${awaiting ? 'NOT NULL' : 'NULL'} ORDER BY retry_at, id LIMIT $2`,
    [graceSeconds, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    workflowId: r.workflowId,
    signal: r.signal,
    payload: r.payload,
    ...(r.start ? { start: r.start } : {}),
    ...(r.nonce ? { awaiting: { nonce: r.nonce, deadAfter: r.deadAfter!.getTime() } } : {}),
    traceContext: r.traceContext,
  }));
}

/** Dead-lettered rows: starts (`workflow_outbox`) and signals (`signal_outbox`). */
export interface DeadLetterCounts {
  starts: number;
  signals: number;
}

export async function deadLetterCounts(db: Db): Promise<DeadLetterCounts> {
  const [row]: { starts: number; signals: number }[] = await db.query(
    `SELECT (SELECT count(*)::int FROM workflow_outbox WHERE status = 'dead') AS starts, (SELECT count(*)::int FROM signal_outbox WHERE status = 'dead') AS signals`,
  );
  return row;
}

/** The dead-lettered rows, oldest first, for an operator to inspect. */
export async function deadLetters(db: Db, limit = 1000) {
  const starts: {
    workflowId: string;
    workflowType: string;
    attempts: number;
    lastError: string;
    createdAt: Date;
  }[] = await db.query(
    `SELECT workflow_id AS "workflowId", workflow_type AS "workflowType", attempts, last_error AS "lastError", created_at AS "createdAt" FROM workflow_outbox WHERE status = 'dead' ORDER BY created_at LIMIT $1`,
    [limit],
  );
  const signals: {
    id: string;
    workflowId: string;
    signal: string;
    nonce: string | null;
    attempts: number;
    lastError: string;
    createdAt: Date;
  }[] = await db.query(
    `SELECT id::text, workflow_id AS "workflowId", signal, nonce::text, attempts, last_error AS "lastError", created_at AS "createdAt" FROM signal_outbox WHERE status = 'dead' ORDER BY id LIMIT $1`,
    [limit],
  );
  return {
    starts: starts.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
    signals: signals.map(({ nonce, ...r }) => ({
      id: r.id,
      workflowId: r.workflowId,
      signal: r.signal,
      ...(nonce ? { nonce } : {}),
      attempts: r.attempts,
      lastError: r.lastError,
      createdAt: r.createdAt.toISOString(),
    })),
  };
}

/** A dead-lettered row as a retry sees it: `row`, its signal id or start's workflow id; where it goes. */
export interface DeadRow {
  row: string;
  workflowId: string;
  nonce: string | null;
}

/** The dead-lettered rows `which` names (`all`, a signal row's id, or a start's workflow id). */
export async function deadRows(db: Db, which: string): Promise<{ signals: DeadRow[]; starts: DeadRow[] }> {
  const all = which === 'all';
  const signals: DeadRow[] = await db.query(
    `SELECT id::text AS row, workflow_id AS "workflowId", nonce::text AS nonce FROM signal_outbox WHERE status = 'dead' AND ($1 OR id::text = $2)`,
    [all, which],
  );
  const starts: DeadRow[] = await db.query(
    `SELECT workflow_id AS row, workflow_id AS "workflowId", NULL AS nonce FROM workflow_outbox WHERE status = 'dead' AND ($1 OR workflow_id = $2)`,
    [all, which],
  );
  return { signals, starts };
}

/**
 * Makes dead-lettered rows pending again, due at once with a fresh count of attempts; a signal that awaits its owner
 * gets `ownerWaitSeconds` again. Returns how many were requeued.
 */
export async function requeueDead(
  db: Db,
  signalIds: string[],
  startIds: string[],
  ownerWaitSeconds: number,
): Promise<number> {
  const requeued = "status = 'pending', attempts = 0, retry_at = now()";
  const [, signalCount] = await db.query(
    `UPDATE signal_outbox SET ${requeued}, dead_after = CASE WHEN nonce IS NULL THEN NULL ELSE now() + make_interval(secs => $2) END
     WHERE status = 'dead' AND id = ANY($1::bigint[])`,
    [signalIds, ownerWaitSeconds],
  );
  const [, startCount] = await db.query(
    `UPDATE workflow_outbox SET ${requeued} WHERE status = 'dead' AND workflow_id = ANY($1::text[])`,
    [startIds],
  );
  return (signalCount as number) + (startCount as number);
}
