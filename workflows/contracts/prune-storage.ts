/** The storage pruner's contract (workflows/prune-storage.ts runs it; src/retention/schedule.ts schedules it). */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const pruneWorkflowType = 'pruneStorage';
export const pruneWorkflowId = (taskQueue: string) => `storage-prune-${taskQueue}`;

/** What is pruned, each by its own retention (src/retention/prune.ts), in this order. */
export const PRUNED = ['lifecycleEventKeys', 'depositEvents', 'webhookAttempts', 'analyticsEvents'] as const;
export type Pruned = (typeof PRUNED)[number];

/** The rows one run deleted, per kind. */
export type PruneResult = Record<Pruned, number>;

/** The pruner's activity (src/retention/prune.ts): the rows of one kind it deleted. */
export interface PruneActivities {
  pruneExpired(kind: Pruned): Promise<number>;
}
