import type { AttemptKey } from '../../workflows/contracts/webhook-delivery';
import type { Db } from '../db/types';
import type { QueuedStart } from '../outbox/store';
import { queueStart } from '../outbox/store';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import type { SendResult } from './send';
import type { TraceContext } from '../tracing/context';

/** What an attempt sends, and to whom. */
export interface Sendable {
  seq: string;
  projectId: string;
  type: string;
  payload: unknown;
  test: boolean;
  createdAt: Date;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousLive: boolean;
  disabledAt: Date | null;
  removedAt: Date | null;
}

/** A delivery the lease loop took (attempt 1 of its round), with what the attempt sends. */
export interface LeasedDelivery extends Sendable {
  eventId: string;
  endpointId: string;
  round: number;
  /** the trace of whoever opened the round (src/webhooks/event-store.ts) */
  traceContext: TraceContext | null;
}

/** A delivery as one attempt finds it: what it sends, its current round and status, and the attempt's record if any. */
export interface AttemptTarget extends Sendable {
  deliveryRound: number;
  deliveryStatus: string;
  recordedStatus: number | null;
  recorded: boolean;
}

export async function attemptTarget(db: Db, a: AttemptKey): Promise<AttemptTarget | undefined> {
  const [t]: AttemptTarget[] = await db.query(
    `SELECT ev.seq, ev.project_id AS "projectId", ev.type, ev.payload, ev.test, ev.created_at AS "createdAt",
       en.url, en.secret, en.previous_secret AS "previousSecret", coalesce(en.previous_secret_expires_at > now(), false) AS "previousLive", en.disabled_at AS "disabledAt", en.removed_at AS "removedAt",
       d.round AS "deliveryRound", d.status AS "deliveryStatus",
       at.status_code AS "recordedStatus", at.event_seq IS NOT NULL AS recorded
     FROM webhook_events ev
     JOIN webhook_deliveries d ON d.event_seq = ev.seq AND d.endpoint_id = $2
     JOIN webhook_endpoints en ON en.id = d.endpoint_id
     LEFT JOIN webhook_attempts at ON at.event_seq = ev.seq AND at.endpoint_id = $2 AND at.round = $3 AND at.attempt = $4
     WHERE ev.event_id = $1`,
    [a.eventId, a.endpointId, a.round, a.attempt],
  );
  return t;
}

export interface AttemptRecord {
  status: 'pending' | 'delivered' | 'failed';
  attempt?: { at: Date; result: SendResult };
  waitSeconds?: number;
  endpoint?: 'healthy' | 'failing' | 'gone';
  disableAfterSeconds?: number;
  error?: string;
  /** the workflow that takes the delivery's retries over (queued with the record) */
  start?: QueuedStart;
}

/**
 * Records an attempt and its consequences in one transaction: the attempt row, the delivery, the event's status
 * (the event row is locked first so concurrent deliveries of one event see each other's results), and the
 * endpoint's health (a 410, or failures for `disableAfterSeconds`, disables it). False when the attempt was
 * already recorded (a repeated activity, or a delivery leased again once its lease ended while the first attempt was still at it).
 */
export async function recordAttempt(db: Db, seq: string, a: AttemptKey, f: AttemptRecord): Promise<boolean> {
  const r = f.attempt?.result;
  return db.transaction(async (tx) => {
    // The event row first, then the attempt and the delivery in the same statement (each step reads the one before).
    // The commit need not wait for its WAL flush: a record lost in a database crash leaves the delivery pending, to be
    // leased and attempted again after its lease (the same webhook-id), as after a worker's crash.
    const [{ counted }] = await preparedQuery<{ counted: number }[]>(
      tx,
      `WITH locked AS (SELECT seq FROM webhook_events, ${WITHOUT_FLUSH_WAIT} WHERE seq = $1 FOR UPDATE OF webhook_events),
       attempt AS (
         INSERT INTO webhook_attempts (event_seq, endpoint_id, round, attempt, attempted_at, status_code, latency_ms, response_body, error)
         SELECT seq, $2, $6, $8, $9, $10, $11, $12, $13 FROM locked WHERE $14 ON CONFLICT DO NOTHING RETURNING 1),
       delivery AS (
         UPDATE webhook_deliveries SET status = $3, attempts = attempts + (SELECT count(*) FROM attempt), last_error = $4,
           delivered_at = CASE WHEN $3 = 'delivered' THEN now() END,
           next_attempt_at = CASE WHEN $3 = 'pending' THEN now() + make_interval(secs => $5) END,
           workflow_id = coalesce($7, workflow_id)
         WHERE event_seq = $1 AND endpoint_id = $2 AND round = $6 AND status = 'pending' AND (NOT $14 OR EXISTS (SELECT 1 FROM attempt))
         RETURNING 1)
       SELECT (SELECT count(*) FROM attempt)::int AS counted, (SELECT count(*) FROM delivery) AS updated`,
      [
        seq,
        a.endpointId,
        f.status,
        f.status === 'delivered' ? null : (f.error ?? null),
        f.waitSeconds ?? 0,
        a.round,
        f.start?.workflowId ?? null,
        a.attempt,
        f.attempt?.at ?? null,
        r?.statusCode ?? null,
        r?.latencyMs ?? 0,
        r?.responseBody ?? null,
        r?.error ?? null,
        f.attempt !== undefined,
      ],
    );
    if (f.attempt && !counted) return false; // this attempt is already recorded
    if (f.start) await queueStart(tx, f.start);
    // The event's status from its deliveries as now updated, and the endpoint's health, in one statement.
    const [health, healthParams] =
      f.endpoint === 'healthy'
        ? [
            'UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now() WHERE id = $3 AND failing_since IS NOT NULL',
            [a.endpointId],
          ]
        : f.endpoint
          ? [
              `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()), updated_at = now(),
             disabled_at = CASE WHEN disabled_at IS NULL AND ($4 OR failing_since < now() - make_interval(secs => $5)) THEN now() ELSE disabled_at END,
             disabled_reason = CASE WHEN disabled_at IS NOT NULL THEN disabled_reason WHEN $4 THEN 'the receiver answered 410 Gone'
               WHEN failing_since < now() - make_interval(secs => $5) THEN 'every attempt failed since ' || to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') END
           WHERE id = $3`,
              [a.endpointId, f.endpoint === 'gone', f.disableAfterSeconds],
            ]
          : [undefined, []];
    await preparedQuery(
      tx,
      `${health ? `WITH endpoint AS (${health})` : ''}
       UPDATE webhook_events ev SET attempts = ev.attempts + $2, status = s.status, delivered_at = CASE WHEN s.status = 'delivered' THEN s.delivered_at END
       FROM (SELECT CASE WHEN bool_or(d.status = 'pending') THEN 'pending' WHEN bool_and(d.status = 'delivered') THEN 'delivered' ELSE 'failed' END AS status,
                    max(d.delivered_at) AS delivered_at
             FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq AND d.round = e.round WHERE d.event_seq = $1) s
       WHERE ev.seq = $1`,
      [seq, counted, ...healthParams],
    );
    return true;
  });
}

/**
 * Deletes up to `limit` webhook attempts (the attempt log) older than `days` days (a chunk of a retention run): of
 * finished deliveries, or of an earlier round; the round being delivered keeps its attempts (a retried attempt reads
 * its recorded result). A row changed meanwhile is left (its ctid no longer matches). Returns how many.
 */
export async function deleteExpiredAttempts(db: Db, days: number, limit: number): Promise<number> {
  const [, deleted]: [unknown, number] = await db.query(
    `DELETE FROM webhook_attempts WHERE ctid = ANY(ARRAY(SELECT a.ctid FROM webhook_attempts a JOIN webhook_deliveries d ON d.event_seq = a.event_seq AND d.endpoint_id = a.endpoint_id
      WHERE a.attempted_at < now() - make_interval(days => $1) AND (d.status <> 'pending' OR a.round < d.round) LIMIT $2))`,
    [days, limit],
  );
  return deleted;
}
