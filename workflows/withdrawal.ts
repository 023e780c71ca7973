import {
  condition,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { WithdrawalActivities } from './contracts/withdrawal';
import { IntentStatus } from './contracts/search-attributes';
import { type WithdrawalClaim, withdrawalClaimSignal, type WithdrawalOutcome } from './contracts/withdrawal';

const { finishWithdrawal } = proxyLocalActivities<WithdrawalActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/**
 * Holds an allocated withdrawal's reservation (started through the outbox by POST /withdrawals) until the indexer
 * reports the transfer's Claim or `expires` (unix seconds) passes; the ledger then releases it once a snapshot shows
 * the claim, or a block at or after `expires` (src/withdrawals/allocate.ts).
 */
export async function holdWithdrawal(nonce: string, expires: number): Promise<WithdrawalOutcome> {
  let claim: WithdrawalClaim | undefined;
  setHandler(withdrawalClaimSignal, (c) => void (claim ??= c));
  await condition(() => claim !== undefined, Math.max(expires * 1000 - workflowInfo().startTime.getTime(), 1));
  const status = claim ? 'CLAIMED' : 'EXPIRED';
  await finishWithdrawal(nonce, status, claim);
  upsertSearchAttributes([{ key: IntentStatus, value: status }]);
  return status;
}
