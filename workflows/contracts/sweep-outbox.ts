/** The outbox sweep's contract (workflows/sweep-outbox.ts runs it; src/outbox/sweeper.ts schedules it). */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const sweepWorkflowType = 'sweepOutbox';
export const sweepWorkflowId = (taskQueue: string) => `outbox-sweep-${taskQueue}`;

/** What one sweep performed. */
export interface SweepResult {
  started: number;
  delivered: number;
}

/** The sweep's activity (the process's outbox, src/outbox/outbox.ts). */
export interface SweepActivities {
  sweepOutbox(graceSeconds: number): Promise<SweepResult & { failed: number }>;
}
