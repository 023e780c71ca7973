import { ints } from '../env';

/**
 * The outbox sweeper: how often it runs, how old a row must be before it takes it over from its request, and how
 * many refusals by Temporal dead-letter a row; and how many starts a process holds pending before it leaves hand-offs
 * to the sweeper
 */
export type OutboxConfig = ReturnType<typeof outboxConfig>;

export const outboxConfig = (env: NodeJS.ProcessEnv) =>
  ints(env, {
    sweepSeconds: ['OUTBOX_SWEEP_SECONDS', 15, 1, 3600],
    graceSeconds: ['OUTBOX_GRACE_SECONDS', 10, 0, 3600],
    maxAttempts: ['OUTBOX_MAX_ATTEMPTS', 10, 1, 100],
    maxPendingStarts: ['OUTBOX_MAX_PENDING_STARTS', 1000, 1, 100_000],
  });
