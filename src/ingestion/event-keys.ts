import type { Tx } from '../db/types';
import { insertLifecycleKeys } from './event-store';

/**
 * Lifecycle events whose effect does not depend on how often they arrive: a preconfirmation only moves a PENDING
 * lifecycle on, and a failure only fails one not filled yet (a fill is never undone), so one per (nonce, chain) says
 * all there is. Each is signalled once: a repeat (another event id, another relayer call) queues nothing, so no
 * caller can flood a lifecycle's signals with them. Fills and claims are not: their content decides (a fill after
 * the deadline does not count, a later one in time does).
 */
const IDEMPOTENT = ['preconfirmation', 'failure'];

/**
 * Which of `events` to queue: all but the repeats of an idempotent event already queued (in this batch or before).
 * Recorded in the caller's transaction; a concurrent batch with the same key waits for it, so exactly one queues it.
 */
export async function toQueue(tx: Tx, events: { nonce: string; type: string; chainId: number }[]): Promise<boolean[]> {
  const keyed = events.map((e) => (IDEMPOTENT.includes(e.type) ? `${e.nonce}:${e.type}:${e.chainId}` : undefined));
  const keys = [...new Set(keyed.filter((k): k is string => k !== undefined))];
  if (!keys.length) return events.map(() => true);
  const parts = keys.map((k) => k.split(':'));
  const fresh = await insertLifecycleKeys(
    tx,
    parts.map(([nonce, type, chainId]) => ({ nonce, type, chainId })),
  );
  const unqueued = new Set(fresh);
  // The first event of a fresh key is queued, once.
  return keyed.map((k) => k === undefined || unqueued.delete(k));
}
