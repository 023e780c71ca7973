import type { Db } from '../db/types';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { WebhookConfig } from './config';
import type { QueuedStart } from '../outbox/store';
import { attemptTarget, recordAttempt, type LeasedDelivery, type Sendable } from './delivery-store';
import { delayAfter, unitHash } from '../../workflows/webhook-delivery-state';
import { post, type SendResult } from './send';
import { signedHeaders } from './signing';
import {
  type AttemptInput,
  type AttemptResult,
  type DeliveryPlan,
  webhookWorkflowType,
} from '../../workflows/contracts/webhook-delivery';
import type { AttemptSlots } from './slots';

/** A receiver's Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/** The workflow that owns an endpoint's retries of one round once its first attempt failed. */
export const retryWorkflowId = (eventId: string, round: number, endpointId: string) =>
  `webhook-${eventId}-${round}-${endpointId}`;

/** The body every receiver gets: `{type, timestamp, data}` (plus `test: true` for POST /webhooks/test events). */
export const envelope = (t: Pick<Sendable, 'type' | 'createdAt' | 'payload' | 'test'>) =>
  JSON.stringify({
    type: t.type,
    timestamp: t.createdAt.toISOString(),
    data: t.payload,
    ...(t.test ? { test: true } : {}),
  });

const ok = (status: number | null | undefined) =>
  status !== null && status !== undefined && status >= 200 && status < 300;

/** Where one attempt stands before it is made: a result already known, or the delivery to attempt. */
async function load(db: Db, a: AttemptInput): Promise<AttemptResult | Sendable> {
  const t = await attemptTarget(db, a);
  if (!t || t.deliveryRound !== a.round) return { outcome: 'stopped' }; // a newer round took over
  if (t.recorded) {
    if (ok(t.recordedStatus)) return { outcome: 'delivered' };
    return t.recordedStatus === 410 || a.nextDelaySeconds === null
      ? { outcome: 'stopped' }
      : { outcome: 'retry', waitSeconds: a.nextDelaySeconds };
  }
  if (t.deliveryStatus !== 'pending') return { outcome: t.deliveryStatus === 'delivered' ? 'delivered' : 'stopped' };
  return (await endpointGone(db, t, a)) ?? t;
}

/** A delivery to a disabled or removed endpoint ends failed, without an attempt. */
async function endpointGone(db: Db, t: Sendable, a: AttemptInput): Promise<AttemptResult | undefined> {
  if (!t.removedAt && !t.disabledAt) return undefined;
  await recordAttempt(db, t.seq, a, {
    status: 'failed',
    error: t.removedAt ? 'endpoint removed' : 'endpoint disabled',
  });
  return { outcome: 'stopped' };
}

/**
 * Makes the attempt and records it. The caller's attempt slot is given back (`sent`) once the receiver answered:
 * the slot bounds requests in flight to the receiver, and recording needs nothing from it. `handoff`, for a first
 * attempt made by the lease loop: the workflow that takes over the delivery when it must be retried, queued in the
 * same transaction.
 */
async function send(
  db: Db,
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
    const secrets = [t.secret, ...(t.previousSecret && t.previousLive ? [t.previousSecret] : [])];
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
  const recorded = await recordAttempt(db, t.seq, a, {
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
  db: Db,
  config: WebhookConfig,
  slots: AttemptSlots,
  a: AttemptInput,
): Promise<AttemptResult> {
  const t = await load(db, a);
  if (!('seq' in t)) return t;
  // Not an attempt: the activity is retried on its own backoff, which adds nothing to the workflow's history.
  if (!slots.tryTake(a.endpointId, t.projectId)) {
    throw ApplicationFailure.create({
      message: `endpoint ${a.endpointId} or its project has its share of attempts in flight`,
      type: 'EndpointBusy',
      category: ApplicationFailureCategory.BENIGN,
    });
  }
  return (await send(db, config, t, a, () => slots.give(a.endpointId, t.projectId))).result;
}

/**
 * The first attempt of a leased delivery (its attempt slot held by the lease loop, given back through `sent`).
 * When it must be retried, the delivery passes to a Temporal workflow in the transaction that records the attempt;
 * the returned start is performed by the caller (or by the outbox sweeper if this process dies first).
 */
export async function attemptLeased(
  db: Db,
  config: WebhookConfig,
  c: LeasedDelivery,
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
    searchAttributes: { Project: c.projectId },
    summary: `${c.type} ${c.eventId} to endpoint ${c.endpointId}, round ${c.round}: retries`,
  }));
  return start;
}
