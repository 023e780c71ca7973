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

/** A transfer into a registered deposit account (docs/deposit-processor.md, Indexer events). */
export interface DepositEvent {
  id: string;
  type: 'deposit';
  chainId: number;
  transactionHash: string;
  logIndex: number;
  token: string;
  amount: string;
  sender: string;
  account: string;
  blockNumber: string;
  /**
   * the nonce of the fill, in the same transaction, that made this transfer: the arrival of one of the account's own
   * intents (its bridge, a withdrawal to itself) is not a deposit (src/deposits/ingest.ts)
   */
  fillNonce?: string;
  /** identical transfers of one transaction (same account, token, sender, amount) numbered 0, 1, … in log order */
  occurrence?: number;
}
/**
 * A reported deposit whose transaction a reorg dropped from the chain: the deposit is voided (docs/deposit-processor.md,
 * Reorgs). Named by the deposit's identity (its transaction and what it moved), not by its log's position.
 */
export interface DepositVoidEvent {
  id: string;
  type: 'deposit-void';
  chainId: number;
  transactionHash: string;
  token: string;
  amount: string;
  sender: string;
  account: string;
  occurrence?: number;
}
/** A transfer out of a deposit account that returns a deposit to its refund recipient. */
export interface DepositRefundEvent {
  id: string;
  type: 'deposit-refund';
  chainId: number;
  transactionHash: string;
  account: string;
  token: string;
  amount: string;
  recipient: string;
  blockNumber?: string;
}
/** A fiat on-ramp partner's order update for an account. */
export interface OnrampOrderEvent {
  id: string;
  type: 'onramp-order';
  account: string;
  orderId: string;
  orderUuid?: string;
  source?: 'onramp' | 'exchange';
  status: 'pending' | 'processing' | 'completed' | 'failed';
  rawStatus?: string;
  token?: string;
  cryptoAmount?: string;
  fiat?: { currency: string; amount: string; amountPlusFees?: string; feeUsd?: string };
  transactionId?: string;
  method?: string;
  exchange?: string;
}
export type DepositIndexerEvent = DepositEvent | DepositVoidEvent | DepositRefundEvent | OnrampOrderEvent;
export const DEPOSIT_EVENT_TYPES: string[] = ['deposit', 'deposit-void', 'deposit-refund', 'onramp-order'];

export type IndexerEvent =
  BalanceEvent | LifecycleEvent | PriceEvent | GasEvent | LiquidityEvent | ForcedWithdrawalEvent | DepositIndexerEvent;

/** Why a new event is refused (src/indexer/consistency.ts; the label of `indexer_events_refused_total`). */
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
