import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from './contracts/webhook-delivery';
import { type DeliveryPlan, retryNowSignal, webhookTaskQueue } from './contracts/webhook-delivery';
import { delayAfter, unitHash } from './webhook-delivery-state';

/**
 * Delivers one event's round to each of its endpoints independently: attempts on the retry schedule until one
 * succeeds, the endpoint stops taking it (410, disabled, removed), or the schedule ends. Each attempt is recorded
 * by the activity; the workflow only decides when the next one happens.
 * The workers' claim loop makes attempt 1 and starts this workflow (one endpoint, `firstAttempt` 2)
 * only when a retry must wait. Rounds queued before carry neither `firstAttempt` nor `retryAt` and take exactly the
 * commands they always took, so their histories replay without a patch marker.
 */
export async function deliverWebhook(plan: DeliveryPlan): Promise<void> {
  const { attemptWebhook } = proxyActivities<WebhookActivities>({
    taskQueue: webhookTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: `${plan.timeoutSeconds + 5}s`,
    // Receiver failures are outcomes, not errors: the activity fails only on infrastructure (the database) or while
    // its endpoint has its share of attempts in flight, so it is retried on, backing off to a minute.
    retry: { initialInterval: '500 milliseconds', maximumInterval: '1 minute', backoffCoefficient: 2 },
  });
  let nudges = 0;
  setHandler(retryNowSignal, () => void nudges++);

  await Promise.all(
    plan.endpointIds.map(async (endpointId) => {
      // A claimed first attempt failed: wait out its retry delay (from this run's start, a time in the history).
      const due = (plan.retryAt ?? 0) - workflowInfo().runStartTime.getTime();
      if (due > 0) await condition(() => nudges > 0, due);
      for (let attempt = plan.firstAttempt ?? 1; ; attempt++) {
        const seen = nudges;
        const nextDelaySeconds = delayAfter(
          plan.retryDelaysSeconds,
          attempt,
          unitHash(`${plan.eventId}/${endpointId}/${plan.round}/${attempt}`),
        );
        const { outcome, waitSeconds } = await attemptWebhook({
          eventId: plan.eventId,
          endpointId,
          round: plan.round,
          attempt,
          nextDelaySeconds,
        });
        if (outcome !== 'retry') return;
        await condition(() => nudges !== seen, Math.max(1, Math.round((waitSeconds ?? 0) * 1000)));
      }
    }),
  );
}
