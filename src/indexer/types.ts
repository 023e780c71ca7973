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

export type IndexerEvent = BalanceEvent;

export interface IngestResult { received: number; applied: number; duplicates: number }
