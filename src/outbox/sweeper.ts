import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { sweepWorkflowId, sweepWorkflowType } from '../../workflows/contracts/sweep-outbox';

export const sweeperScheduleId = (taskQueue: string) => `outbox-sweeper-${taskQueue}`;

/**
 * Makes sure the Temporal schedule that runs `sweepOutbox` every `sweepSeconds` exists (every worker calls this at
 * start; the first creates it, the others find it). Overlapping runs are skipped, so one sweep runs at a time.
 */
export async function ensureSweeperSchedule(client: Client, taskQueue: string, sweepSeconds: number, graceSeconds: number): Promise<void> {
  const scheduleId = sweeperScheduleId(taskQueue);
  const action = { type: 'startWorkflow' as const, workflowType: sweepWorkflowType, taskQueue, args: [graceSeconds], workflowId: sweepWorkflowId(taskQueue) };
  try {
    await client.schedule.create({ scheduleId, spec: { intervals: [{ every: `${sweepSeconds}s` }] }, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
    // Settings may have changed since it was created.
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec: { intervals: [{ every: `${sweepSeconds}s` }] }, action }));
  }
}
