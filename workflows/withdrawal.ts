import { condition, defineSignal, ParentClosePolicy, proxyActivities, proxyLocalActivities, setHandler, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { WithdrawalRequest } from '../src/withdrawals/allocate';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

const { allocateWithdrawal } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 8 },
});

export const withdrawalClaimSignal = defineSignal<[{ chainId: number; transactionHash: string; timestamp: number }]>('claim');
export const withdrawalWorkflowId = (nonce: string) => `withdrawal-${nonce}`;

/**
 * POST /withdrawals and /batch-withdrawals: allocate (checks, nonce, reservation, signature, record) and hand the
 * reservation to a workflow keyed by the nonce, which outlives this one.
 */
export async function requestWithdrawal(req: WithdrawalRequest, projectId?: string): ReturnType<Activities['allocateWithdrawal']> {
  const outcome = await allocateWithdrawal(req, projectId);
  if (outcome.ok) {
    await startChild(holdWithdrawal, {
      workflowId: withdrawalWorkflowId(outcome.value.nonce),
      args: [outcome.value.nonce, outcome.value.msUntilExpiry],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }
  return outcome;
}

/** Holds the reservation until the indexer reports the transfer's Claim or `expires` passes. */
export async function holdWithdrawal(nonce: string, msUntilExpiry: number): Promise<'CLAIMED' | 'EXPIRED'> {
  let claimed = false;
  setHandler(withdrawalClaimSignal, () => void (claimed = true));
  const status = (await condition(() => claimed, Math.max(msUntilExpiry, 1))) ? 'CLAIMED' : 'EXPIRED';
  await acts.finishWithdrawal(nonce, status);
  return status;
}
