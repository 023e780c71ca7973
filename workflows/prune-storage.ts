import { proxyActivities } from '@temporalio/workflow';
import type { PruneActivities } from './contracts/prune-storage';
import { PRUNED, type PruneResult } from './contracts/prune-storage';

/** Each kind is pruned in bounded chunks (src/retention/prune.ts): what is left waits for the next run. */
const { pruneExpired } = proxyActivities<PruneActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * Run by the `storage-pruner` schedule (src/retention/schedule.ts): deletes the rows past their retention that no
 * open lifecycle, pending delivery or unfolded report still needs, one kind after the other.
 */
export async function pruneStorage(): Promise<PruneResult> {
  const result = {} as PruneResult;
  for (const kind of PRUNED) result[kind] = await pruneExpired(kind);
  return result;
}
