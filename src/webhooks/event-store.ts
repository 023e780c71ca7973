import { randomBytes } from 'node:crypto';
import type { Db, Tx } from '../db/types';
import { iso, newestPage } from '../db/newest-page';
import { DUE_CHANNEL } from './lease-store';
import type { EventStatus, WebhookType } from './types';
import { currentTraceContext } from '../tracing/context';

export interface NewEvent {
  projectId: string;
  type: WebhookType;
  /** the emitter's key for the cause (e.g. `deposit:<id>:received`): emitting it again returns the first event */
  idempotencyKey: string;
  depositId?: string | null;
  payload: unknown;
  test?: boolean;
}

/** The spec's webhook event record. */
export interface EventRecord {
  eventId: string;
  type: WebhookType;
  time: string;
  status: EventStatus;
  attempts: number;
  depositId: string | null;
  deliveredAt: string | null;
  payload: unknown;
  test?: true;
}

const newEventId = () => `evt_${randomBytes(16).toString('base64url')}`;

/**
 * Opens a delivery round for an event inside the caller's transaction: one pending delivery per live endpoint that
 * takes the type, due now, and a notification (sent at commit) that wakes the workers' lease loops. Without such an
 * endpoint the event is `failed` with no attempt (a replay delivers it once an endpoint exists). Returns how many
 * deliveries it opened.
 */
async function openRound(tx: Tx, seq: string, projectId: string, type: string, round: number): Promise<number> {
  const endpoints: { id: string }[] = await tx.query(
    `INSERT INTO webhook_deliveries (event_seq, endpoint_id, round, status, next_attempt_at)
     SELECT $1, id, $2, 'pending', now() FROM webhook_endpoints
     WHERE project_id = $3 AND removed_at IS NULL AND disabled_at IS NULL AND (types IS NULL OR $4 = ANY(types))
     ON CONFLICT (event_seq, endpoint_id) DO UPDATE SET round = EXCLUDED.round, status = 'pending', next_attempt_at = now(), last_error = NULL, workflow_id = NULL
     RETURNING endpoint_id AS id`,
    [seq, round, projectId, type],
  );
  // The round's first attempts, made by a worker's lease loop, continue the trace of whoever opened it (an emit, a
  // resend or a replay).
  await tx.query(
    `UPDATE webhook_events SET round = $2, status = $3, delivered_at = NULL, trace_context = $4 WHERE seq = $1`,
    [seq, round, endpoints.length ? 'pending' : 'failed', currentTraceContext()],
  );
  if (endpoints.length) await tx.query(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
  return endpoints.length;
}

/**
 * Records an event and opens its delivery in the caller's transaction (so the event exists exactly when the state
 * change that caused it does; its first attempt follows the commit, made by the workers' lease loop, so there is
 * nothing for the emitter to start). Idempotent per (project, idempotencyKey).
 */
export async function emitEvent(tx: Tx, e: NewEvent): Promise<{ eventId: string; created: boolean }> {
  const inserted: { seq: string; eventId: string }[] = await tx.query(
    `INSERT INTO webhook_events (event_id, project_id, idempotency_key, type, deposit_id, payload, test, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending') ON CONFLICT (project_id, idempotency_key) DO NOTHING RETURNING seq, event_id AS "eventId"`,
    [
      newEventId(),
      e.projectId,
      e.idempotencyKey,
      e.type,
      e.depositId ?? null,
      JSON.stringify(e.payload),
      e.test ?? false,
    ],
  );
  if (!inserted.length) {
    const [existing]: { eventId: string }[] = await tx.query(
      'SELECT event_id AS "eventId" FROM webhook_events WHERE project_id = $1 AND idempotency_key = $2',
      [e.projectId, e.idempotencyKey],
    );
    return { eventId: existing.eventId, created: false };
  }
  const [{ seq, eventId }] = inserted;
  await openRound(tx, seq, e.projectId, e.type, 1);
  return { eventId, created: true };
}

/** The live endpoints that would receive an event of this type now. */
export async function receiverCount(db: Tx, projectId: string, type: WebhookType): Promise<number> {
  const [{ count }] = await db.query(
    'SELECT count(*)::int AS count FROM webhook_endpoints WHERE project_id = $1 AND removed_at IS NULL AND disabled_at IS NULL AND (types IS NULL OR $2 = ANY(types))',
    [projectId, type],
  );
  return count;
}

interface EventRow {
  seq: string;
  eventId: string;
  type: WebhookType;
  createdAt: Date;
  status: EventStatus;
  attempts: number;
  depositId: string | null;
  deliveredAt: Date | null;
  payload: unknown;
  test: boolean;
}
const EVENT_COLUMNS =
  'seq, event_id AS "eventId", type, created_at AS "createdAt", status, attempts, deposit_id AS "depositId", delivered_at AS "deliveredAt", payload, test';

const present = (r: EventRow): EventRecord => ({
  eventId: r.eventId,
  type: r.type,
  time: r.createdAt.toISOString(),
  status: r.status,
  attempts: r.attempts,
  depositId: r.depositId,
  deliveredAt: iso(r.deliveredAt),
  payload: r.payload,
  ...(r.test ? { test: true as const } : {}),
});

/** The cursor is the lowest position of the previous page, opaque to clients (base64url of the sequence number). */
export const encodeCursor = (seq: string) => Buffer.from(`s:${seq}`).toString('base64url');
export function decodeCursor(cursor: string): string | undefined {
  const m = /^s:([1-9][0-9]{0,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m && BigInt(m[1]) <= 9_223_372_036_854_775_807n ? m[1] : undefined;
}

export interface EventFilter {
  since?: string;
  type?: WebhookType;
  status?: EventStatus;
  depositId?: string;
  limit: number;
  before?: string;
}

/**
 * Newest first by sequence. A page continues strictly below the previous page's lowest sequence, so events created
 * while a client pages (always above it) never shift, repeat or hide what it has not read yet.
 */
export async function listEvents(
  db: Db,
  projectId: string,
  f: EventFilter,
): Promise<{ events: EventRecord[]; nextCursor: string | null }> {
  const { page, more } = await newestPage<EventRow>(db, {
    columns: EVENT_COLUMNS,
    table: 'webhook_events',
    key: 'seq',
    projectId,
    limit: f.limit,
    conditions: [
      ['seq < ?', f.before],
      ['created_at >= ?', f.since],
      ['type = ?', f.type],
      ['status = ?', f.status],
      ['deposit_id = ?', f.depositId],
    ],
  });
  return { events: page.map(present), nextCursor: more ? encodeCursor(page[page.length - 1].seq) : null };
}

export interface DeliveryView {
  endpointId: string;
  url: string;
  status: EventStatus;
  attempts: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  lastError: string | null;
}
export interface AttemptView {
  endpointId: string;
  round: number;
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  response: string | null;
  error: string | null;
}

type DeliveryRow = Omit<DeliveryView, 'nextAttemptAt' | 'deliveredAt'> & {
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
};
type AttemptRow = Omit<AttemptView, 'at' | 'response'> & { attemptedAt: Date; responseBody: string | null };

export async function getEvent(
  db: Db,
  projectId: string,
  eventId: string,
): Promise<(EventRecord & { deliveries: DeliveryView[]; attemptLog: AttemptView[] }) | undefined> {
  const [row]: EventRow[] = await db.query(
    `SELECT ${EVENT_COLUMNS} FROM webhook_events WHERE project_id = $1 AND event_id = $2`,
    [projectId, eventId],
  );
  if (!row) return undefined;
  const [deliveries, attempts]: [DeliveryRow[], AttemptRow[]] = await Promise.all([
    db.query(
      `SELECT d.endpoint_id AS "endpointId", e.url, d.status, d.attempts, d.next_attempt_at AS "nextAttemptAt", d.delivered_at AS "deliveredAt", d.last_error AS "lastError"
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.event_seq = $1 ORDER BY e.created_at`,
      [row.seq],
    ),
    db.query(
      `SELECT endpoint_id AS "endpointId", round, attempt, attempted_at AS "attemptedAt", status_code AS "statusCode", latency_ms AS "latencyMs", response_body AS "responseBody", error
       FROM webhook_attempts WHERE event_seq = $1 ORDER BY attempted_at, round, attempt`,
      [row.seq],
    ),
  ]);
  return {
    ...present(row),
    deliveries: deliveries.map((d) => ({
      endpointId: d.endpointId,
      url: d.url,
      status: d.status,
      attempts: d.attempts,
      nextAttemptAt: iso(d.nextAttemptAt),
      deliveredAt: iso(d.deliveredAt),
      lastError: d.lastError,
    })),
    attemptLog: attempts.map((a) => ({
      endpointId: a.endpointId,
      round: a.round,
      attempt: a.attempt,
      at: iso(a.attemptedAt)!,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      response: a.responseBody,
      error: a.error,
    })),
  };
}

export type Resend = { eventId: string; status: EventStatus; attempts: number } & (
  { kind: 'nudge'; workflowIds: string[] } | { kind: 'round' } | { kind: 'no-endpoint' }
);

/**
 * Delivers a stored event again under its original eventId (so receivers' deduplication still holds). An event
 * still pending is nudged: the workflows waiting to retry its deliveries attempt now (`reopen` when one of them is
 * gone: a new round); a delivery still with the lease loop is attempted already. A finished one gets a new round to
 * today's endpoints; with none, nothing changes.
 */
export async function resendEvent(
  db: Db,
  projectId: string,
  eventId: string,
  reopen = false,
): Promise<Resend | undefined> {
  return db.transaction(async (tx) => {
    const [row]: (EventRow & { round: number })[] = await tx.query(
      `SELECT ${EVENT_COLUMNS}, round FROM webhook_events WHERE project_id = $1 AND event_id = $2 FOR UPDATE`,
      [projectId, eventId],
    );
    if (!row) return undefined;
    const at = { eventId, status: row.status, attempts: row.attempts };
    if (row.status === 'pending' && !reopen) {
      const waiting: { workflowId: string }[] = await tx.query(
        `SELECT DISTINCT workflow_id AS "workflowId" FROM webhook_deliveries WHERE event_seq = $1 AND round = $2 AND status = 'pending' AND workflow_id IS NOT NULL`,
        [row.seq, row.round],
      );
      return { kind: 'nudge', workflowIds: waiting.map((w) => w.workflowId), ...at };
    }
    if (!(await receiverCount(tx, projectId, row.type))) return { kind: 'no-endpoint', ...at };
    await openRound(tx, row.seq, projectId, row.type, row.round + 1);
    return { kind: 'round', ...at, status: 'pending' };
  });
}

/** Most events one replay reopens; the answer says how many it took, so a client can narrow the window and repeat. */
export const REPLAY_LIMIT = 1000;

/** Opens a new round for every failed event of the project created in [since, until); returns how many it opened. */
export async function replayFailed(
  db: Db,
  projectId: string,
  since: string,
  until: string | undefined,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows: { seq: string; type: string; round: number }[] = await tx.query(
      `SELECT seq, type, round FROM webhook_events
       WHERE project_id = $1 AND status = 'failed' AND created_at >= $2 AND ($3::timestamptz IS NULL OR created_at < $3)
       ORDER BY seq LIMIT $4 FOR UPDATE`,
      [projectId, since, until ?? null, REPLAY_LIMIT],
    );
    let opened = 0;
    for (const r of rows) if (await openRound(tx, r.seq, projectId, r.type, r.round + 1)) opened++;
    return opened;
  });
}

/**
 * Deletes up to `limit` deposit webhook events older than `days` days (a chunk of a retention run): only of a deposit
 * in a terminal stage (completed, refunded; a rejected one may still be recovered), only finished ones (not pending),
 * and never its latest, which the funnel report reads as the deposit's processed outcome (src/analytics/store.ts), so
 * reports read the same after pruning. A row changed meanwhile is left (its ctid no longer matches). Returns how many.
 */
export async function deleteExpiredDepositEvents(db: Db, days: number, limit: number): Promise<number> {
  const [, deleted]: [unknown, number] = await db.query(
    `DELETE FROM webhook_events WHERE ctid = ANY(ARRAY(SELECT e.ctid FROM webhook_events e
      JOIN deposits d ON d.id = CASE WHEN e.deposit_id ~ '^[0-9]{1,18}$' THEN e.deposit_id::bigint END AND d.project_id = e.project_id
      WHERE e.deposit_id IS NOT NULL AND NOT e.test AND e.created_at < now() - make_interval(days => $1) AND e.status <> 'pending' AND d.stage IN ('completed', 'refunded')
        AND EXISTS (SELECT 1 FROM webhook_events later WHERE later.deposit_id = e.deposit_id AND later.project_id = e.project_id AND later.seq > e.seq) LIMIT $2))`,
    [days, limit],
  );
  return deleted;
}
