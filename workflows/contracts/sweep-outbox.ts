/** The outbox sweep's contract (workflows/sweep-outbox.ts runs it; src/outbox/sweeper.ts schedules it). */
export const sweepWorkflowId = (taskQueue: string) => `outbox-sweep-${taskQueue}`;

/** What one sweep performed. */
export interface SweepResult { started: number; delivered: number }
