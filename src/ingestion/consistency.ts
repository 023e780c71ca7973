import type { QuotedPlan } from '../intents/quote-store';
import type { BalanceEvent, IndexerEvent, LifecycleEvent, Refusal, RefusalReason } from './types';

/**
 * What an indexer event must agree with before it is applied: the rest of its batch, this server's clock, the
 * snapshots stored before it and the quote its nonce names. Pure: src/ingestion/screen.ts reads what is stored.
 */

/** A block of a chain and its timestamp (unix seconds), as a snapshot reported it. */
export interface BlockTime {
  block: bigint;
  timestamp: number;
}

/** Block timestamps never decrease as blocks increase, and one block has one timestamp. */
export function contradicts(a: BlockTime, b: BlockTime): boolean {
  if (a.block === b.block) return a.timestamp !== b.timestamp;
  return a.block < b.block ? a.timestamp > b.timestamp : a.timestamp < b.timestamp;
}

/**
 * The pairs of `sorted` (in block order) nearest to `block`: the last at or below it and the first at or above it.
 * Stored pairs agree with each other, so a timestamp that agrees with these agrees with all of them.
 */
export function nearestTimes(sorted: BlockTime[], block: bigint): BlockTime[] {
  let lo = 0;
  let hi = sorted.length; // the first pair above `block` is at `lo` once they meet
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].block <= block) lo = mid + 1;
    else hi = mid;
  }
  const below = sorted[lo - 1];
  const above = below?.block === block ? below : sorted[lo];
  return [below, above].filter((t): t is BlockTime => t !== undefined);
}

/** An event of the batch by its place in it (`events[index]`). */
export interface Located {
  index: number;
  id: string;
}
/** Two events of one batch that cannot both be true: the batch is refused (400) and changes nothing. */
export interface Conflict {
  message: string;
  events: [Located, Located];
}

const at = (e: Located) => `events[${e.index}] (id "${e.id}")`;
const pair = (message: string, a: Located, b: Located): Conflict => ({
  message,
  events: [
    { index: a.index, id: a.id },
    { index: b.index, id: b.id },
  ],
});

/**
 * The first pair of events in `events` (first occurrence of each id, as ingestion takes them) that contradict each
 * other: two balances of one key and block with different amounts, or two block timestamps of one chain out of order.
 * Which of them is true cannot be known, so neither is applied.
 */
export function batchConflict(events: IndexerEvent[], defaultLockTag: string): Conflict | undefined {
  const seen = new Set<string>();
  const balances: (Located & { e: BalanceEvent })[] = [];
  events.forEach((e, index) => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    if (e.type === 'balance') balances.push({ e, index, id: e.id });
  });
  return amountConflict(balances, defaultLockTag) ?? clockConflict(balances);
}

function amountConflict(balances: (Located & { e: BalanceEvent })[], defaultLockTag: string): Conflict | undefined {
  // Only events of one account can conflict, and a batch mostly has one event per account: the whole key (and its
  // map) is built for the accounts reported more than once alone.
  const accounts = balances.map(({ e }) => e.account.toLowerCase());
  const reports = new Map<string, number>();
  for (const account of accounts) reports.set(account, (reports.get(account) ?? 0) + 1);
  const amounts = new Map<string, Located & { amount: bigint }>();
  for (const b of balances.filter((_, i) => reports.get(accounts[i])! > 1)) {
    const { e } = b;
    const key = `chain ${e.chainId}, account ${e.account.toLowerCase()}, token ${e.token.toLowerCase()}, block ${BigInt(e.blockNumber)}`;
    const reported: [string, string | undefined][] = [
      ['unlocked', e.unlocked],
      [`locked (lock tag ${(e.lockTag ?? defaultLockTag).toLowerCase()})`, e.locked],
    ];
    for (const [kind, amount] of reported) {
      if (amount === undefined) continue;
      const prior = amounts.get(`${kind} ${key}`);
      if (!prior) amounts.set(`${kind} ${key}`, { index: b.index, id: b.id, amount: BigInt(amount) });
      else if (prior.amount !== BigInt(amount)) {
        return pair(
          `${at(prior)} and ${at(b)} report different ${kind} balances of ${key}: ${prior.amount} and ${amount}`,
          prior,
          b,
        );
      }
    }
  }
  return undefined;
}

function clockConflict(balances: (Located & { e: BalanceEvent })[]): Conflict | undefined {
  const chains = new Map<number, (Located & BlockTime)[]>();
  for (const { e, index, id } of balances) {
    if (e.blockTimestamp === undefined) continue;
    const times = chains.get(e.chainId) ?? [];
    if (!times.length) chains.set(e.chainId, times);
    times.push({ index, id, block: BigInt(e.blockNumber), timestamp: e.blockTimestamp });
  }
  for (const [chainId, times] of chains) {
    // In block order (then time), any contradiction shows between neighbours.
    const sorted = times.sort((a, b) => (a.block === b.block ? a.timestamp - b.timestamp : a.block < b.block ? -1 : 1));
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1], sorted[i]];
      if (contradicts(a, b)) {
        return pair(
          `${at(a)} and ${at(b)} report block timestamps of chain ${chainId} that contradict each other (block ${a.block} at ${a.timestamp}, block ${b.block} at ${b.timestamp}): block timestamps never decrease`,
          a,
          b,
        );
      }
    }
  }
  return undefined;
}

/**
 * A timestamp more than `skewSeconds` ahead of `nowSeconds` (this server's clock) is not a mined block's: a
 * snapshot's `blockTimestamp`, or the `timestamp` of a fill or claim (a fill stamped past its deadline would be
 * recorded and merely not count, so it is refused like the rest).
 */
export function futureTimestamp(
  e: BalanceEvent | LifecycleEvent,
  nowSeconds: number,
  skewSeconds: number,
): Refusal | undefined {
  const [field, stamp] = e.type === 'balance' ? ['blockTimestamp', e.blockTimestamp] : ['timestamp', e.timestamp];
  const ahead = (stamp ?? 0) - nowSeconds;
  if (ahead <= skewSeconds) return undefined;
  return {
    id: e.id,
    type: e.type,
    reason: 'future-timestamp',
    message: `${field} ${stamp} is ${ahead} s ahead of this server's clock (at most ${skewSeconds} s allowed)`,
  };
}

/** A block timestamp that contradicts one of a stored snapshot of the same chain (`stored`). */
export function storedTimeContradiction(e: BalanceEvent, stored: BlockTime[]): Refusal | undefined {
  const own = { block: BigInt(e.blockNumber), timestamp: e.blockTimestamp! };
  const other = stored.find((s) => contradicts(own, s));
  if (!other) return undefined;
  return {
    id: e.id,
    type: e.type,
    reason: 'timestamp-order',
    message: `blockTimestamp ${own.timestamp} of block ${own.block} contradicts a stored snapshot of chain ${e.chainId} (block ${other.block} at ${other.timestamp}): block timestamps never decrease`,
  };
}

/**
 * A fill is mined on its intent's destination chain, after the intent was quoted, and pays what its mandate asks; a
 * claim is mined on one of its origin chains. `skewSeconds` allows for a chain's clock being behind this server's. `plan`: the quote of the event's nonce.
 */
export function lifecycleRefusal(e: LifecycleEvent, plan: QuotedPlan, skewSeconds: number): Refusal | undefined {
  const refuse = (reason: RefusalReason, message: string): Refusal => ({ id: e.id, type: e.type, reason, message });
  if (e.type === 'fill' && e.chainId !== plan.destinationChainId) {
    return refuse(
      'fill-chain',
      `a fill on chain ${e.chainId}, but nonce ${e.nonce} fills on chain ${plan.destinationChainId}`,
    );
  }
  if (e.type === 'fill' && e.timestamp! < plan.quotedAt - skewSeconds) {
    return refuse(
      'fill-before-quote',
      `fill timestamp ${e.timestamp} is before nonce ${e.nonce} was quoted (${plan.quotedAt})`,
    );
  }
  if (e.type === 'fill') {
    const unpaid = unpaidMandate(e, plan);
    if (unpaid) return refuse(unpaid.reason, unpaid.message);
  }
  if (e.type === 'claim' && !plan.originChainIds.includes(e.chainId)) {
    return refuse(
      'claim-chain',
      `a claim on chain ${e.chainId}, which is not an origin chain of nonce ${e.nonce} (${plan.originChainIds.join(', ')})`,
    );
  }
  return undefined;
}

/** A fill of a nonce no quote names: never a fill of ours (every intent and legacy bundle is quoted first). */
export function unquotedFill(e: LifecycleEvent): Refusal {
  return {
    id: e.id,
    type: e.type,
    reason: 'fill-unquoted',
    message: `nonce ${e.nonce} was never quoted here: a fill comes after its intent's quote`,
  };
}

/**
 * How a fill that says who and what it paid falls short of its intent's mandate: another recipient, or less than
 * some `tokenOut`. A fill that paid more is a fill. (A fill after the fill deadline is not refused: it does not count,
 * workflows/intent-state.ts.)
 */
export function unpaidMandate(
  e: LifecycleEvent,
  plan: Pick<QuotedPlan, 'recipient' | 'tokenOut'>,
): { reason: RefusalReason; message: string } | undefined {
  if (e.recipient !== undefined && e.recipient.toLowerCase() !== plan.recipient)
    return {
      reason: 'fill-recipient',
      message: `the fill paid ${e.recipient.toLowerCase()}, but nonce ${e.nonce} pays ${plan.recipient}`,
    };
  if (e.tokens === undefined) return undefined;
  // Per token, what was paid against what the mandate asks: one token may stand in several entries of either.
  const sums = (entries: { token: string; amount: string | bigint }[]) => {
    const out = new Map<string, bigint>();
    for (const t of entries) out.set(t.token.toLowerCase(), (out.get(t.token.toLowerCase()) ?? 0n) + BigInt(t.amount));
    return out;
  };
  const paid = sums(e.tokens);
  for (const [token, amount] of sums(plan.tokenOut)) {
    if ((paid.get(token) ?? 0n) < amount)
      return {
        reason: 'fill-amount',
        message: `the fill paid ${paid.get(token) ?? 0n} of token ${token}, but nonce ${e.nonce} asks at least ${amount}`,
      };
  }
  return undefined;
}
