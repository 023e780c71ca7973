/**
 * The chain indexer's contract: two `followChain` workflows per followed chain (workflows/follow-chain.ts), one per
 * stream, started by every worker that follows chains (src/chain-indexer/start.ts), reading the chain range by range
 * through the `readChainRange` activity (src/chain-indexer/read-range.ts) on the chain indexer's task queue.
 */
export const followChainWorkflowType = 'followChain';

/**
 * `balances`: The Compact's ERC-6909 transfers, at the chain's confirmation depth; what a reorg makes wrong is read
 * again. `settlements`: what no later event can take back (claims, fills, forced-withdrawal statuses, transfers into
 * and out of deposit accounts), at the settlement depth, never 0: a deposit reported from a block a reorg abandons
 * could be bridged before anyone knew. Each stream has its own cursor.
 */
export const CHAIN_STREAMS = ['balances', 'settlements'] as const;
export type ChainStream = (typeof CHAIN_STREAMS)[number];
export const followChainWorkflowId = (chainId: number, stream: ChainStream) => `chain-indexer-${chainId}-${stream}`;
export const chainIndexerTaskQueue = (taskQueue: string) => `${taskQueue}-chain-indexer`;

/** A block by number (decimal string) and hash. */
export interface BlockRef {
  number: string;
  hash: string;
}

/** A balance a reported event set: a lock's (`lockId`) or a wallet's ERC-20 (`token`). */
export type BalanceKey = { account: string; lockId: string } | { account: string; token: string };

/**
 * A transfer reported as a deposit, by its identity (its transaction and what it moved, not its log's place: a
 * reorg may mine the transaction again elsewhere): what a reorg that drops its transaction voids.
 */
export interface DepositKey {
  transactionHash: string;
  account: string;
  token: string;
  sender: string;
  amount: string;
  occurrence: number;
}

/**
 * The end of one reported range, and what its events set that a reorg abandoning it makes wrong. Kept while that
 * block may still be abandoned (the newest RECENT_RANGES ranges).
 */
export interface ReportedRange {
  block: BlockRef;
  balances: BalanceKey[];
  deposits: DepositKey[];
}

/** Where a chain's indexer stands; carried from run to run (continue-as-new) and through each range read. */
export interface ChainCursor {
  /** the last block whose events were reported; null before the first range (reading starts at the start block) */
  last: BlockRef | null;
  /** the newest reported ranges, oldest first: a rewind goes back to the newest one still canonical */
  recent: ReportedRange[];
  /** after a rewind: balances to read again once a range ends above `above` (the abandoned branch's highest block) */
  resnapshot?: { above: string; balances: BalanceKey[] };
  /**
   * after a rewind: the abandoned ranges' deposits the new branch has not reported yet; those still missing once a
   * range ends at or above `above` are voided
   */
  voids?: { above: string; deposits: DepositKey[] };
}

export interface FollowChainInput {
  chainId: number;
  stream: ChainStream;
  cursor: ChainCursor;
  /** the queue its activity runs on: only workers that follow chains poll it (chainIndexerTaskQueue) */
  activityQueue: string;
}

/** What one `readChainRange` did: the new cursor (the workflow reads the next range at once). */
export interface RangeRead {
  cursor: ChainCursor;
  /** events handed to ingestion (new or not) */
  events: number;
  /** blocks rewound after a reorg (0: none) */
  rewound: number;
}

/** How many reported ranges a rewind can go back over. */
export const RECENT_RANGES = 64;

/** The follower's activity (src/chain-indexer/read-range.ts), polled on chainIndexerTaskQueue. */
export interface ChainIndexerActivities {
  readChainRange(chainId: number, stream: ChainStream, cursor: ChainCursor): Promise<RangeRead>;
}
