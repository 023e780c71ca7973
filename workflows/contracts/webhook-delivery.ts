import { defineSignal } from '@temporalio/workflow';

/**
 * The webhook delivery workflow's contract (workflows/webhook-delivery.ts runs it; src/webhooks queues it and
 * nudges it, src/worker/workers.ts polls its task queue).
 */

/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const webhookWorkflowType = 'deliverWebhook';

/** Cuts every waiting retry short (POST /webhooks/events/{id}/resend of a pending event). */
export const retryNowSignal = defineSignal('retryNow');

/** The task queue of delivery attempts, apart from lifecycle activities so receivers never slow intents down. */
export const webhookTaskQueue = (taskQueue: string) => `${taskQueue}-webhooks`;

/** What the delivery workflow needs, fixed when the round is queued so a configuration change never alters a running one. */
export interface DeliveryPlan {
  eventId: string;
  round: number;
  endpointIds: string[];
  retryDelaysSeconds: number[];
  timeoutSeconds: number;
  /**
   * Set when the claim loop made attempt 1 and this workflow takes the retries over: the attempt it starts at, and
   * when (epoch ms) that attempt is due. Absent in rounds queued before the claim loop made first attempts: those start at attempt 1.
   */
  firstAttempt?: number;
  retryAt?: number;
}

/** Which attempt of which delivery. */
export interface AttemptKey {
  eventId: string;
  endpointId: string;
  round: number;
  attempt: number;
}

export interface AttemptInput extends AttemptKey {
  /** the wait before the next attempt if this one fails; null when it is the last */
  nextDelaySeconds: number | null;
}

/** One attempt's outcome as the workflow sees it. */
export type AttemptOutcome =
  | 'delivered'
  /** failed; try again on the schedule (or give up if this was the last attempt) */
  | 'retry'
  /** the endpoint was disabled or removed, or answered 410 Gone: no more attempts */
  | 'stopped';

export interface AttemptResult {
  outcome: AttemptOutcome;
  waitSeconds?: number;
}

/** The delivery's activity (src/webhooks/deliver.ts), polled on webhookTaskQueue. */
export interface WebhookActivities {
  attemptWebhook(a: AttemptInput): Promise<AttemptResult>;
}
