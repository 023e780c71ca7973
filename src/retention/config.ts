import { ints } from '../env';

/**
 * Retention of what only grows, in days per kind of row (0 keeps it forever), and how often the
 * `storage-pruner-<task queue>` schedule prunes. What an open lifecycle still needs is kept whatever its age
 * (src/retention/prune.ts).
 */
export type RetentionConfig = ReturnType<typeof retentionConfig>;

export const retentionConfig = (env: NodeJS.ProcessEnv) =>
  ints(env, {
    pruneSeconds: ['RETENTION_PRUNE_SECONDS', 3600, 60, 86_400],
    lifecycleEventKeysDays: ['RETENTION_EVENT_KEYS_DAYS', 30, 0, 36_500],
    depositEventsDays: ['RETENTION_DEPOSIT_EVENTS_DAYS', 365, 0, 36_500],
    webhookAttemptsDays: ['RETENTION_WEBHOOK_ATTEMPTS_DAYS', 30, 0, 36_500],
    analyticsEventsDays: ['RETENTION_ANALYTICS_EVENTS_DAYS', 400, 0, 36_500],
  });
