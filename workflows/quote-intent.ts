import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IntentInput } from '../src/intents/quote';

const { createQuote } = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 5 },
});

/** A quote allocates a nonce and stores a signed operation: a state change, so it runs as an activity. */
export async function quoteIntent(input: IntentInput, projectId?: string): ReturnType<Activities['createQuote']> {
  return createQuote(input, projectId);
}
