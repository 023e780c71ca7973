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
}

export interface PriceEvent { id: string; type: 'price'; symbol: string; usd: number }
export interface GasEvent { id: string; type: 'gas'; chainId: number; gasPrice: string }
export interface LiquidityEvent { id: string; type: 'liquidity'; chainId: number; settlementLayer: string; token: string; amount: string }

export interface ForcedWithdrawalEvent { id: string; type: 'forced-withdrawal'; chainId: number; account: string; lockId: string; status: 'disabled' | 'pending' | 'enabled'; blockNumber?: string }

export type IndexerEvent = BalanceEvent | LifecycleEvent | PriceEvent | GasEvent | LiquidityEvent | ForcedWithdrawalEvent;

export interface IngestResult { received: number; applied: number; duplicates: number }

/** A fresh lifecycle event to hand to the workflow that owns the nonce. */
export interface Delivery { nonce: string; event: LifecycleEvent }
