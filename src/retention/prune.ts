import type { Db } from '../db/types';
import type { Pruned } from '../../workflows/contracts/prune-storage';
import { deleteExpiredEvents } from '../analytics/rollup-store';
import { deleteExpiredEventKeys } from '../ingestion/event-store';
import { deleteExpiredAttempts } from '../webhooks/delivery-store';
import { deleteExpiredDepositEvents } from '../webhooks/event-store';
import type { RetentionConfig } from './config';

/** Rows deleted per statement (each its own short transaction), and statements per kind in one run. */
const CHUNK = 5000;
const MAX_CHUNKS = 100;

/**
 * Per kind: its retention setting, and the owner's delete of a chunk of its rows past it that nothing still needs
 * (what each keeps is said beside its statement).
 */
const POLICIES: Record<
  Pruned,
  { days: keyof RetentionConfig; deleteChunk: (db: Db, days: number, limit: number) => Promise<number> }
> = {
  lifecycleEventKeys: { days: 'lifecycleEventKeysDays', deleteChunk: deleteExpiredEventKeys },
  depositEvents: { days: 'depositEventsDays', deleteChunk: deleteExpiredDepositEvents },
  webhookAttempts: { days: 'webhookAttemptsDays', deleteChunk: deleteExpiredAttempts },
  analyticsEvents: { days: 'analyticsEventsDays', deleteChunk: deleteExpiredEvents },
};

/**
 * Deletes one kind's rows past its retention (none when it is 0), CHUNK at a time, at most MAX_CHUNKS statements:
 * a backlog is worked off over several runs. Returns how many were deleted; safe to repeat.
 */
export async function pruneExpired(db: Db, config: RetentionConfig, kind: Pruned): Promise<number> {
  const { days, deleteChunk } = POLICIES[kind];
  if (!config[days]) return 0;
  let deleted = 0;
  for (let i = 0; i < MAX_CHUNKS; i++) {
    const n = await deleteChunk(db, config[days], CHUNK);
    deleted += n;
    if (n < CHUNK) break;
  }
  return deleted;
}
