import type { DataSource } from 'typeorm';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { WebhookConfig } from '../config';
import { queueStart, type QueuedStart } from '../outbox/store';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import { delayAfter, unitHash } from '../../workflows/webhook-delivery-state';
import { post, type SendResult } from './send';
import { signedHeaders } from './signing';
import { type DeliveryPlan, webhookWorkflowType } from '../../workflows/contracts/webhook-delivery';
import type { AttemptOutcome } from './types';
import type { AttemptSlots } from './slots';

export interface AttemptInput {
  eventId: string;
  endpointId: string;
  round: number;
  attempt: number;
  /** the wait before the next attempt if this one fails; null when it is the last */
  nextDelaySeconds: number | null;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  waitSeconds?: number;
}

/** A receiver's Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/** The workflow that owns an endpoint's retries of one round once its first attempt failed. */
export const retryWorkflowId = (eventId: string, round: number, endpointId: string) =>
  `webhook-${eventId}-${round}-${endpointId}`;

/** What an attempt sends, and to whom. */
export interface Sendable {
  seq: string;
  project_id: string;
  type: string;
  payload: unknown;
  test: boolean;
  created_at: Date;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_live: boolean;
  disabled_at: Date | null;
  removed_at: Date | null;
}

interface Target extends Sendable {
  delivery_round: number;
  delivery_status: string;
  recorded_status: number | null;
  recorded: boolean;
}

/** The body every receiver gets: `{type, timestamp, data}` (plus `test: true` for POST /webhooks/test events). */
export const envelope = (t: Pick<Sendable, 'type' | 'created_at' | 'payload' | 'test'>) =>
  JSON.stringify({
    type: t.type,
    timestamp: t.created_at.toISOString(),
    data: t.payload,
    ...(t.test ? { test: true } : {}),
  });

const ok = (status: number | null | undefined) =>
  status !== null && status !== undefined && status >= 200 && status < 300;

/** Where one attempt stands before it is made: a result already known, or the delivery to attempt. */
async function load(db: DataSource, a: AttemptInput): Promise<AttemptResult | Target> {
  const [t]: Target[] = await db.query(
    `SELECT ev.seq, ev.project_id, ev.type, ev.payload, ev.test, ev.created_at,
       en.url, en.secret, en.previous_secret, coalesce(en.previous_secret_expires_at > now(), false) AS previous_live, en.disabled_at, en.removed_at,
       d.round AS delivery_round, d.status AS delivery_status,
       at.status_code AS recorded_status, at.event_seq IS NOT NULL AS recorded
     FROM webhook_events ev
     JOIN webhook_deliveries d ON d.event_seq = ev.seq AND d.endpoint_id = $2
     JOIN webhook_endpoints en ON en.id = d.endpoint_id
     LEFT JOIN webhook_attempts at ON at.event_seq = ev.seq AND at.endpoint_id = $2 AND at.round = $3 AND at.attempt = $4
     WHERE ev.event_id = $1`,
    [a.eventId, a.endpointId, a.round, a.attempt],
  );
  if (!t || t.delivery_round !== a.round) return { outcome: 'stopped' }; // a newer round took over
  if (t.recorded) {
    if (ok(t.recorded_status)) return { outcome: 'delivered' };
    return t.recorded_status === 410 || a.nextDelaySeconds === null
      ? { outcome: 'stopped' }
      : { outcome: 'retry', waitSeconds: a.nextDelaySeconds };
  }
  if (t.delivery_status !== 'pending') return { outcome: t.delivery_status === 'delivered' ? 'delivered' : 'stopped' };
  return (await endpointGone(db, t, a)) ?? t;
}

/** A delivery to a disabled or removed endpoint ends failed, without an attempt. */
async function endpointGone(db: DataSource, t: Sendable, a: AttemptInput): Promise<AttemptResult | undefined> {
  if (!t.removed_at && !t.disabled_at) return undefined;
  await finish(db, t.seq, a, { status: 'failed', error: t.removed_at ? 'endpoint removed' : 'endpoint disabled' });
  return { outcome: 'stopped' };
}

/**
 * Makes the attempt and records it. The caller's attempt slot is given back (`sent`) once the receiver answered:
 * the slot bounds requests in flight to the receiver, and recording needs nothing from it. `handoff`, for a first
 * attempt made by the claim loop: the workflow that takes over the delivery when it must be retried, queued in the
 * same transaction.
 */
async function send(
  db: DataSource,
  config: WebhookConfig,
  t: Sendable,
  a: AttemptInput,
  sent: () => void,
  handoff?: (waitSeconds: number) => QueuedStart,
): Promise<{ result: AttemptResult; start?: QueuedStart }> {
  const at = new Date();
  let result: SendResult;
  try {
    const body = envelope(t);
    const secrets = [t.secret, ...(t.previous_secret && t.previous_live ? [t.previous_secret] : [])];
    result = await post(t.url, signedHeaders(a.eventId, at, body, secrets), body, config.timeoutSeconds * 1000, config);
  } finally {
    sent();
  }
  const delivered = ok(result.statusCode);
  const gone = result.statusCode === 410;
  const last = a.nextDelaySeconds === null;
  const waitSeconds = last
    ? undefined
    : Math.max(a.nextDelaySeconds!, Math.min(result.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS));
  const status = delivered ? 'delivered' : gone || last ? 'failed' : 'pending';
  const start = status === 'pending' && handoff ? handoff(waitSeconds!) : undefined;
  const recorded = await finish(db, t.seq, a, {
    status,
    attempt: { at, result },
    waitSeconds,
    endpoint: delivered ? 'healthy' : gone ? 'gone' : 'failing',
    disableAfterSeconds: config.disableAfterSeconds,
    error: result.error ?? (delivered ? undefined : `HTTP ${result.statusCode}`),
    start,
  });
  return {
    result: delivered
      ? { outcome: 'delivered' }
      : gone || last
        ? { outcome: 'stopped' }
        : { outcome: 'retry', waitSeconds },
    ...(recorded && start ? { start } : {}),
  };
}

/**
 * One delivery attempt (the `attemptWebhook` activity: the retries, from attempt 2). Safe to run again for the
 * same attempt: a recorded attempt is answered from its record, and a POST repeated after a crash carries the same
 * webhook-id, which receivers deduplicate on.
 */
export async function attemptDelivery(
  db: DataSource,
  config: WebhookConfig,
  slots: AttemptSlots,
  a: AttemptInput,
): Promise<AttemptResult> {
  const t = await load(db, a);
  if (!('seq' in t)) return t;
  // Not an attempt: the activity is retried on its own backoff, which adds nothing to the workflow's history.
  if (!slots.tryTake(a.endpointId, t.project_id)) {
    throw ApplicationFailure.create({
      message: `endpoint ${a.endpointId} or its project has its share of attempts in flight`,
      type: 'EndpointBusy',
      category: ApplicationFailureCategory.BENIGN,
    });
  }
  return (await send(db, config, t, a, () => slots.give(a.endpointId, t.project_id))).result;
}

/** A delivery the claim loop took (attempt 1 of its round), with what the attempt sends. */
export interface Claim extends Sendable {
  eventId: string;
  endpointId: string;
  round: number;
}

/**
 * The first attempt of a claimed delivery (its attempt slot held by the claim loop, given back through `sent`).
 * When it must be retried, the delivery passes to a Temporal workflow in the transaction that records the attempt;
 * the returned start is performed by the caller (or by the outbox sweeper if this process dies first).
 */
export async function attemptClaimed(
  db: DataSource,
  config: WebhookConfig,
  c: Claim,
  sent: () => void,
): Promise<QueuedStart | undefined> {
  const a: AttemptInput = {
    eventId: c.eventId,
    endpointId: c.endpointId,
    round: c.round,
    attempt: 1,
    nextDelaySeconds: delayAfter(config.retryDelaysSeconds, 1, unitHash(`${c.eventId}/${c.endpointId}/${c.round}/1`)),
  };
  if (await endpointGone(db, c, a)) {
    sent();
    return undefined;
  }
  const plan = (waitSeconds: number): DeliveryPlan => ({
    eventId: c.eventId,
    round: c.round,
    endpointIds: [c.endpointId],
    retryDelaysSeconds: config.retryDelaysSeconds,
    timeoutSeconds: config.timeoutSeconds,
    firstAttempt: 2,
    retryAt: Date.now() + waitSeconds * 1000,
  });
  const { start } = await send(db, config, c, a, sent, (waitSeconds) => ({
    workflowId: retryWorkflowId(c.eventId, c.round, c.endpointId),
    workflowType: webhookWorkflowType,
    args: [plan(waitSeconds)],
    searchAttributes: { Project: c.project_id },
    summary: `${c.type} ${c.eventId} to endpoint ${c.endpointId}, round ${c.round}: retries`,
  }));
  return start;
}

interface Finish {
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
 * already recorded (a repeated activity, or a claim taken again after its lease while the first was still at it).
 */
async function finish(db: DataSource, seq: string, a: AttemptInput, f: Finish): Promise<boolean> {
  const r = f.attempt?.result;
  return db.transaction(async (tx) => {
    // The event row first, then the attempt and the delivery in the same statement (each step reads the one before).
    // The commit need not wait for its WAL flush: a record lost in a database crash leaves the delivery pending, to be
    // claimed and attempted again after its lease (the same webhook-id), as after a worker's crash.
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
