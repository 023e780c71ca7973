import { defineSignal } from '@temporalio/workflow';
import type { ChainTx } from '../intent-state';

/** The withdrawal hold's contract (workflows/withdrawal.ts runs it; src/withdrawals starts it, src/ingestion signals it). */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const withdrawalWorkflowType = 'holdWithdrawal';
export const withdrawalWorkflowId = (nonce: string) => `withdrawal-${nonce}`;

/** The transfer's Claim, as the indexer reports it. */
export type WithdrawalClaim = ChainTx;
export const withdrawalClaimSignal = defineSignal<[WithdrawalClaim]>('claim');

/** How a hold ends: its claim arrived, or `expires` passed. */
export type WithdrawalOutcome = 'CLAIMED' | 'EXPIRED';

/** The hold's activity (activities/index.ts, over src/withdrawals/allocate.ts). */
export interface WithdrawalActivities {
  finishWithdrawal(nonce: string, status: WithdrawalOutcome, claim?: WithdrawalClaim): Promise<void>;
}
