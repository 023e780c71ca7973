/** What an indexer reports to the deposit processor (docs/deposit-processor.md, Indexer events; src/ingestion/types.ts has the rest). */
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
