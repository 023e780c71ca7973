import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleSpec } from '@temporalio/client';

/** The workflow a schedule starts at each run. */
export interface ScheduledWorkflow {
  workflowType: string;
  taskQueue: string;
  args: unknown[];
  workflowId: string;
}

/**
 * Makes sure the Temporal schedule `scheduleId` starts `workflow` every `everySeconds` (every worker calls this at
 * start; the first creates it, the others find it and apply their settings). Overlapping runs are skipped, so one
 * runs at a time.
 */
export async function ensureSchedule(
  client: Client,
  scheduleId: string,
  everySeconds: number,
  workflow: ScheduledWorkflow,
): Promise<void> {
  const action = { type: 'startWorkflow' as const, ...workflow };
  const spec: ScheduleSpec = { intervals: [{ every: `${everySeconds}s` }] };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP } });
  } catch (e) {
    if (!(e instanceof ScheduleAlreadyRunning)) throw e;
    // Settings may have changed since it was created.
    await client.schedule.getHandle(scheduleId).update((prev) => ({ ...prev, spec, action }));
  }
}
