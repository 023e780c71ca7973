import { condition, defineSignal, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryPlan } from '../src/webhooks/types';
import { busyDelayMs, delayAfter, unitHash } from './webhook-schedule';

/** Cuts every waiting retry short (POST /webhooks/events/{id}/resend of a pending event). */
export const retryNowSignal = defineSignal('retryNow');

/** The task queue of delivery attempts, apart from lifecycle activities so receivers never slow intents down. */
export const webhookTaskQueue = (taskQueue: string) => `${taskQueue}-webhooks`;

/**
 * Delivers one event's round to each of its endpoints independently: attempts on the retry schedule until one
 * succeeds, the endpoint stops taking it (410, disabled, removed), or the schedule ends. Each attempt is recorded
 * by the activity; the workflow only decides when the next one happens.
 */
export async function deliverWebhook(plan: DeliveryPlan): Promise<void> {
  const { attemptWebhook } = proxyActivities<Activities>({
    taskQueue: webhookTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: `${plan.timeoutSeconds + 5}s`,
    // Receiver failures are outcomes, not errors: only infrastructure (the database) fails the activity, so retry on.
    retry: { initialInterval: '1s', maximumInterval: '1 minute', backoffCoefficient: 2 },
  });
  let nudges = 0;
  setHandler(retryNowSignal, () => void nudges++);

  await Promise.all(plan.endpointIds.map(async (endpointId) => {
    let busy = 0;
    for (let attempt = 1; ; ) {
      const seen = nudges;
      const key = `${plan.eventId}/${endpointId}/${plan.round}/${attempt}`;
      const nextDelaySeconds = delayAfter(plan.retryDelaysSeconds, attempt, unitHash(key));
      const { outcome, waitSeconds } = await attemptWebhook({ eventId: plan.eventId, endpointId, round: plan.round, attempt, nextDelaySeconds });
      if (outcome === 'busy') {
        await sleep(busyDelayMs(busy, unitHash(`${key}/${busy++}`)));
        continue;
      }
      if (outcome !== 'retry') return;
      busy = 0;
      attempt++;
      await condition(() => nudges !== seen, Math.max(1, Math.round((waitSeconds ?? 0) * 1000)));
    }
  }));
}
