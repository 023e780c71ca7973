import type { Tx } from '../db/types';
import { quotedPlans } from '../intents/quote-store';
import { lockChainClock, nearestStoredTimes, storedTimesAcross } from './event-store';
import {
  futureTimestamp,
  lifecycleRefusal,
  unquotedFill,
  nearestTimes,
  storedTimeContradiction,
  type BlockTime,
} from './consistency';
import type { BalanceEvent, IndexerEvent, LifecycleEvent, Refusal } from './types';

const stamped = (events: IndexerEvent[]) =>
  events.filter((e): e is BalanceEvent => e.type === 'balance' && e.blockTimestamp !== undefined);

/**
 * Makes batches with block timestamps of the same chain take turns, so each is judged against every pair the others
 * stored and the stored pairs stay consistent (then the nearest ones decide: storedTimes). Taken first in the
 * batch's transaction, in chain order, so batches never wait for each other in a circle.
 */
export async function lockChainClocks(tx: Tx, events: IndexerEvent[]): Promise<void> {
  const chains = [...new Set(stamped(events).map((e) => e.chainId))].sort((a, b) => a - b);
  for (const chainId of chains) await lockChainClock(tx, chainId);
}

/**
 * The new events of a batch that contradict what is known (src/ingestion/consistency.ts): block, fill and claim
 * timestamps ahead of this server's clock, block timestamps out of order with the stored snapshots of their chain,
 * and fills and claims that do not match the quote their nonce names. A fill of a nonce no quote names is refused: a nonce is quoted before anything
 * can fill it, while nonces are easy to guess, so a fill sent ahead would otherwise wait for the intent and fill it
 * unchecked. A claim of a nonce with no quote (a withdrawal's) is not judged here.
 */
export async function screenEvents(
  tx: Tx,
  events: IndexerEvent[],
  nowSeconds: number,
  skewSeconds: number,
): Promise<Refusal[]> {
  const refused: Refusal[] = [];
  const inTime = <T extends BalanceEvent | LifecycleEvent>(e: T) => {
    const future = futureTimestamp(e, nowSeconds, skewSeconds);
    if (future) refused.push(future);
    return !future;
  };
  const balances = stamped(events).filter(inTime);
  const stored = await storedTimes(tx, balances);
  for (const e of balances) {
    const contradiction = storedTimeContradiction(e, stored.get(`${e.chainId}:${BigInt(e.blockNumber)}`) ?? []);
    if (contradiction) refused.push(contradiction);
  }
  const lifecycle = events.filter((e): e is LifecycleEvent => e.type === 'fill' || e.type === 'claim').filter(inTime);
  if (lifecycle.length) {
    const nonce = (e: LifecycleEvent) => BigInt(e.nonce).toString();
    const plans = await quotedPlans(tx, [...new Set(lifecycle.map(nonce))]);
    for (const e of lifecycle) {
      const plan = plans.get(nonce(e));
      const refusal = plan ? lifecycleRefusal(e, plan, skewSeconds) : e.type === 'fill' ? unquotedFill(e) : undefined;
      if (refusal) refused.push(refusal);
    }
  }
  return refused;
}

/**
 * Per (chain, block) of `events`, the stored (block, timestamp) pairs of that chain nearest to the block, below and
 * above (the block itself included), from both balance tables. The stored pairs are consistent with each other, so
 * a timestamp that agrees with those agrees with all of them. Read per chain across the span of the batch's blocks
 * (a chain indexer's batch is a run of new blocks, with no stored pair inside), else block by block where the span
 * holds more stored pairs than the batch has blocks of that chain.
 */
async function storedTimes(tx: Tx, events: BalanceEvent[]): Promise<Map<string, BlockTime[]>> {
  const chains = new Map<string, Set<bigint>>();
  for (const e of events) {
    const blocks = chains.get(String(e.chainId)) ?? new Set();
    if (!blocks.size) chains.set(String(e.chainId), blocks);
    blocks.add(BigInt(e.blockNumber));
  }
  const times = new Map<string, BlockTime[]>();
  if (!chains.size) return times;
  const sorted = new Map([...chains].map(([chainId, blocks]) => [chainId, [...blocks].sort(byBlock)]));
  const rows = await storedTimesAcross(
    tx,
    [...sorted].map(([chainId, blocks]) => ({ chainId, from: String(blocks[0]), to: String(blocks.at(-1)) })),
    Math.max(...[...sorted.values()].map((blocks) => blocks.length)),
  );
  const stored = new Map<string, BlockTime[]>();
  const inside = new Map<string, number>();
  for (const r of rows) {
    const pairs = stored.get(r.chainId) ?? [];
    if (!pairs.length) stored.set(r.chainId, pairs);
    pairs.push({ block: BigInt(r.block), timestamp: Number(r.timestamp) });
    if (r.inside) inside.set(r.chainId, (inside.get(r.chainId) ?? 0) + 1);
  }
  const crowded: { chainId: string; block: string }[] = [];
  for (const [chainId, blocks] of sorted) {
    if ((inside.get(chainId) ?? 0) > blocks.length) {
      crowded.push(...blocks.map((block) => ({ chainId, block: String(block) })));
      continue;
    }
    const pairs = (stored.get(chainId) ?? []).sort((a, b) => byBlock(a.block, b.block));
    for (const block of blocks) times.set(`${chainId}:${block}`, nearestTimes(pairs, block));
  }
  if (crowded.length) {
    for (const r of await nearestStoredTimes(tx, crowded)) {
      const near = times.get(r.key) ?? [];
      if (!near.length) times.set(r.key, near);
      near.push({ block: BigInt(r.block), timestamp: Number(r.timestamp) });
    }
  }
  return times;
}

const byBlock = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
