import { condition, defineSignal, proxyLocalActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ChainTx } from './intent-state';
import { IntentStatus } from './search-attributes';

const { finishWithdrawal } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

export type WithdrawalClaim = ChainTx;
export const withdrawalClaimSignal = defineSignal<[WithdrawalClaim]>('claim');
export const withdrawalWorkflowId = (nonce: string) => `withdrawal-${nonce}`;

/**
 * Holds an allocated withdrawal's reservation (started through the outbox by POST /withdrawals) until the indexer
 * reports the transfer's Claim or `expires` (unix seconds) passes; the ledger then releases it once a snapshot shows
 * the claim, or a block at or after `expires` (src/withdrawals/allocate.ts).
 */
export async function holdWithdrawal(nonce: string, expires: number): Promise<'CLAIMED' | 'EXPIRED'> {
  let claim: WithdrawalClaim | undefined;
  setHandler(withdrawalClaimSignal, (c) => void (claim ??= c));
  await condition(() => claim !== undefined, Math.max(expires * 1000 - workflowInfo().startTime.getTime(), 1));
  const status = claim ? 'CLAIMED' : 'EXPIRED';
  await finishWithdrawal(nonce, status, claim);
  upsertSearchAttributes([{ key: IntentStatus, value: status }]);
  return status;
}
