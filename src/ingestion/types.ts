import type { DepositIndexerEvent } from '../deposits/indexer-events';

/** Indexer events as they cross into Temporal: plain JSON, amounts and block numbers as decimal strings. */
export interface BalanceEvent {
  id: string;
  type: 'balance';
  chainId: number;
  account: string;
  token: string;
  unlocked?: string;
  locked?: string;
  lockTag?: string;
  blockNumber: string;
  /** unix seconds of the block: what releases reservations past their `expires` (src/ledger/ledger.ts) */
  blockTimestamp?: number;
  /** a block above the chain's confirmation depth: shown in portfolios, never used by the ledger */
  unconfirmed?: boolean;
}

/** Lifecycle events are keyed by the allocator nonce that on-chain Claim events carry (= the intent id). */
export interface LifecycleEvent {
  id: string;
  type: 'preconfirmation' | 'fill' | 'claim' | 'failure';
  chainId: number;
  nonce: string;
  transactionHash?: string;
  timestamp?: number;
  /** claims: the block of the Claim (decimal string); its reservation is released once a snapshot that recent arrives */
  blockNumber?: string;
  reason?: string;
  /** fills: who the fill paid and what, checked against the intent's mandate when present */
  recipient?: string;
  tokens?: { token: string; amount: string }[];
}

export interface PriceEvent {
  id: string;
  type: 'price';
  symbol: string;
  usd: number;
}
export interface GasEvent {
  id: string;
  type: 'gas';
  chainId: number;
  gasPrice: string;
}
export interface LiquidityEvent {
  id: string;
  type: 'liquidity';
  chainId: number;
  settlementLayer: string;
  token: string;
  amount: string;
}

export interface ForcedWithdrawalEvent {
  id: string;
  type: 'forced-withdrawal';
  chainId: number;
  account: string;
  lockId: string;
  status: 'disabled' | 'pending' | 'enabled';
  blockNumber?: string;
}

export type IndexerEvent =
  BalanceEvent | LifecycleEvent | PriceEvent | GasEvent | LiquidityEvent | ForcedWithdrawalEvent | DepositIndexerEvent;

/** Why a new event is refused (src/ingestion/consistency.ts; the label of `indexer_events_refused_total`). */
export const REFUSAL_REASONS = [
  'future-timestamp',
  'timestamp-order',
  'fill-chain',
  'fill-before-quote',
  'fill-recipient',
  'fill-amount',
  'fill-unquoted',
  'claim-chain',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
/** An event left unapplied and unrecorded, and what the indexer is told. */
export interface Refusal {
  id: string;
  type: string;
  reason: RefusalReason;
  message: string;
}

/** `refused`: new events that contradict what is stored, by their place in the batch (only when there are any). */
export interface IngestResult {
  received: number;
  applied: number;
  duplicates: number;
  refused?: (Refusal & { index: number })[];
}

/** A fresh lifecycle event to hand to the workflow that owns the nonce. */
export interface Delivery {
  nonce: string;
  event: LifecycleEvent;
}
