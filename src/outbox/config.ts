import { int } from '../env';

/**
 * The outbox sweeper: how often it runs, how old a row must be before it takes it over from its request, and how
 * many refusals by Temporal dead-letter a row
 */
export interface OutboxConfig { sweepSeconds: number; graceSeconds: number; maxAttempts: number }

export function outboxConfig(env: NodeJS.ProcessEnv): OutboxConfig {
  return {
    sweepSeconds: int(env, 'OUTBOX_SWEEP_SECONDS', 15, 1, 3600),
    graceSeconds: int(env, 'OUTBOX_GRACE_SECONDS', 10, 0, 3600),
    maxAttempts: int(env, 'OUTBOX_MAX_ATTEMPTS', 10, 1, 100),
  };
}
