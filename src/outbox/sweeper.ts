import type { Client } from '@temporalio/client';
import { ensureSchedule } from '../temporal-sdk/schedules';
import { sweepWorkflowId, sweepWorkflowType } from '../../workflows/contracts/sweep-outbox';

export const sweeperScheduleId = (taskQueue: string) => `outbox-sweeper-${taskQueue}`;

/** The schedule that runs `sweepOutbox` every `sweepSeconds`, one sweep at a time. */
export function ensureSweeperSchedule(
  client: Client,
  taskQueue: string,
  sweepSeconds: number,
  graceSeconds: number,
): Promise<void> {
  return ensureSchedule(client, sweeperScheduleId(taskQueue), sweepSeconds, {
    workflowType: sweepWorkflowType,
    taskQueue,
    args: [graceSeconds],
    workflowId: sweepWorkflowId(taskQueue),
  });
}
