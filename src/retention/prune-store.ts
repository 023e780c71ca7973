import type { DataSource } from 'typeorm';
import type { Pruned } from '../../workflows/contracts/prune-storage';
import type { RetentionConfig } from './config';

/** Rows deleted per statement (each its own short transaction), and statements per kind in one run. */
const CHUNK = 5000;
const MAX_CHUNKS = 100;

/** Before this many days ($1), from now. */
const PAST = (column: string) => `${column} < now() - make_interval(days => $1)`;

/**
 * Per kind: the table, its retention setting, and a query of the ctids of the rows past it that nothing still needs.
 * - Lifecycle event keys (the dedupe of preconfirmations and failures, src/ingestion/event-keys.ts): kept while their
 *   nonce's intent or bundle has not ended (COMPLETED, or released at `expires`), or its quote is unspent and may
 *   still be submitted.
 * - A deposit's webhook events: only of a deposit in a terminal stage (completed, refunded; a rejected one may still
 *   be recovered), only finished ones (not pending), and never its latest, which the funnel report reads as the
 *   deposit's processed outcome (src/analytics/store.ts), so reports read the same after pruning.
 * - Webhook attempts (the attempt log): of finished deliveries, or of an earlier round; the round being delivered
 *   keeps its attempts (a retried attempt reads its recorded result).
 * - Raw analytics events: of whole UTC days before the retention, and only folded ones (not queued for the
 *   rollup). A report of a range that starts within the retention reads raw events only of its first and last day,
 *   which are kept, and the rollup for the rest, so it stays exact.
 */
const POLICIES: Record<Pruned, { table: string; days: keyof RetentionConfig; doomed: string }> = {
  lifecycleEventKeys: {
    table: 'lifecycle_event_keys',
    days: 'lifecycleEventKeysDays',
    doomed: `SELECT k.ctid FROM lifecycle_event_keys k WHERE ${PAST('k.created_at')}
      AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.id = k.nonce AND i.status <> 'COMPLETED' AND i.released_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM bundles b WHERE b.id = k.nonce AND b.status <> 'COMPLETED' AND b.released_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM quotes q WHERE q.nonce = k.nonce AND q.expires_at > now()
                      AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.id = q.nonce) AND NOT EXISTS (SELECT 1 FROM bundles b WHERE b.id = q.nonce))`,
  },
  depositEvents: {
    table: 'webhook_events',
    days: 'depositEventsDays',
    doomed: `SELECT e.ctid FROM webhook_events e
      JOIN deposits d ON d.id = CASE WHEN e.deposit_id ~ '^[0-9]{1,18}$' THEN e.deposit_id::bigint END AND d.project_id = e.project_id
      WHERE e.deposit_id IS NOT NULL AND NOT e.test AND ${PAST('e.created_at')} AND e.status <> 'pending' AND d.stage IN ('completed', 'refunded')
        AND EXISTS (SELECT 1 FROM webhook_events later WHERE later.deposit_id = e.deposit_id AND later.project_id = e.project_id AND later.seq > e.seq)`,
  },
  webhookAttempts: {
    table: 'webhook_attempts',
    days: 'webhookAttemptsDays',
    doomed: `SELECT a.ctid FROM webhook_attempts a JOIN webhook_deliveries d ON d.event_seq = a.event_seq AND d.endpoint_id = a.endpoint_id
      WHERE ${PAST('a.attempted_at')} AND (d.status <> 'pending' OR a.round < d.round)`,
  },
  analyticsEvents: {
    table: 'analytics_events',
    days: 'analyticsEventsDays',
    // received_at bounds the scan (its index); occurred_at is what reports read.
    doomed: `SELECT e.ctid FROM analytics_events e, (SELECT date_trunc('day', now() - make_interval(days => $1), 'UTC') AS day) cutoff
      WHERE e.received_at < cutoff.day AND e.occurred_at < cutoff.day
        AND NOT EXISTS (SELECT 1 FROM analytics_fold_queue q WHERE q.project_id = e.project_id AND e.id = ANY(q.event_ids))`,
  },
};

/**
 * Deletes one kind's rows past its retention (none when it is 0), CHUNK at a time, at most MAX_CHUNKS statements:
 * a backlog is worked off over several runs. A row changed meanwhile is left (its ctid no longer matches). Returns
 * how many were deleted; safe to repeat.
 */
export async function pruneExpired(db: DataSource, config: RetentionConfig, kind: Pruned): Promise<number> {
  const { table, days, doomed } = POLICIES[kind];
  if (!config[days]) return 0;
  let deleted = 0;
  for (let i = 0; i < MAX_CHUNKS; i++) {
    const [, n]: [unknown, number] = await db.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(${doomed} LIMIT ${CHUNK}))`,
      [config[days]],
    );
    deleted += n;
    if (n < CHUNK) break;
  }
  return deleted;
}
