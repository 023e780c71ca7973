import type { Db } from '../db/types';
import { readBundle } from '../intents/bundle-store';
import { lifecycleStarts } from '../intents/store';
import { recordLifecycleEvents } from '../intents/transition-store';
import { toQueue } from '../ingestion/event-keys';
import { queueSignals, type QueuedSignal } from '../outbox/store';
import { preconfirmationSignal } from '../../workflows/contracts/intent-lifecycle';

/**
 * A relayer's fill preconfirmation of a project's bundle on `chainId`, recorded as the indexer's would be, with the
 * signal that tells its lifecycle, in one transaction: the signals for the caller to deliver after the commit (none
 * for a repeat on the same chain, src/ingestion/event-keys.ts), or undefined when the project has no such bundle.
 */
export async function recordPreconfirmation(
  db: Db,
  projectId: string,
  id: string,
  chainId: number,
  fillGraceSeconds: number,
): Promise<QueuedSignal[] | undefined> {
  return db.transaction(async (tx) => {
    if (!(await readBundle(tx, id, projectId))) return undefined;
    if (!(await toQueue(tx, [{ nonce: id, type: preconfirmationSignal.name, chainId }]))[0]) return [];
    await recordLifecycleEvents(tx, [{ id, event: { type: 'preconfirmation', chainId } }]);
    const start = (await lifecycleStarts(tx, [id], fillGraceSeconds)).get(id)!;
    return queueSignals(tx, [
      { workflowId: start.workflowId, signal: preconfirmationSignal.name, payload: { chainId }, start },
    ]);
  });
}
