import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { SweepResult } from './contracts/sweep-outbox';

const { sweepOutbox: sweep } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 3 },
});

/**
 * Run by the `outbox-sweeper` schedule (src/outbox/sweeper.ts): performs the workflow starts and signals that a
 * request recorded but did not perform (its process died, or Temporal was unreachable at that moment).
 */
export async function sweepOutbox(graceSeconds: number): Promise<SweepResult> {
  return sweep(graceSeconds);
}
