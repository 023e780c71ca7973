import { proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IntentInput } from '../src/intents/quote';

const { createQuote } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 5 },
});

/**
 * A quote allocates a nonce and stores a signed operation: a state change, so it runs as an activity (a local one:
 * it is short, and skipping the task-queue round trips roughly halves the quote's latency).
 */
export async function quoteIntent(input: IntentInput, projectId?: string): ReturnType<Activities['createQuote']> {
  return createQuote(input, projectId);
}
