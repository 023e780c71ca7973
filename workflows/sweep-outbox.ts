import { proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from './contracts/sweep-outbox';
import type { SweepResult } from './contracts/sweep-outbox';

const { sweepOutbox: sweep } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '1 minute',
  // The activity heartbeats: a sweep whose worker died is run again 10 s later, not after the minute, and the
  // schedule (one sweep at a time) is not held up by it for that long.
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * Run by the `outbox-sweeper` schedule (src/outbox/sweeper.ts): performs the workflow starts and signals that a
 * request recorded but did not perform (its process died, or Temporal was unreachable at that moment).
 */
export async function sweepOutbox(graceSeconds: number): Promise<SweepResult> {
  return sweep(graceSeconds);
}
