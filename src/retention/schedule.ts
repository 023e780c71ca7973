import type { Client } from '@temporalio/client';
import { ensureSchedule } from '../temporal-sdk/schedules';
import { pruneWorkflowId, pruneWorkflowType } from '../../workflows/contracts/prune-storage';

export const pruneScheduleId = (taskQueue: string) => `storage-pruner-${taskQueue}`;

/** The schedule that runs `pruneStorage` every `pruneSeconds` (RETENTION_PRUNE_SECONDS). */
export function ensurePruneSchedule(client: Client, taskQueue: string, pruneSeconds: number): Promise<void> {
  return ensureSchedule(client, pruneScheduleId(taskQueue), pruneSeconds, {
    workflowType: pruneWorkflowType,
    taskQueue,
    args: [],
    workflowId: pruneWorkflowId(taskQueue),
  });
}
