import { getAddress } from 'viem';
import { toCaip2 } from '../chains/registry';
import { iso } from '../db/newest-page';
import { wireStatus } from '../../workflows/deposit-state';
import type { DepositRow } from './store';

/** The hosted product's record (docs/deposit-processor.md, Widget routes: GET /deposits). */
export function presentDeposit(r: DepositRow) {
  return {
    id: r.id,
    chain: toCaip2(Number(r.chainId)),
    txHash: r.txHash,
    logIndex: r.logIndex,
    token: getAddress(r.token),
    amount: r.amount,
    sender: getAddress(r.sender),
    account: getAddress(r.account),
    recipient: getAddress(r.recipient),
    targetChain: toCaip2(Number(r.targetChainId)),
    targetToken: getAddress(r.targetToken),
    status: wireStatus(r.stage),
    stage: r.stage,
    sourceTxHash: r.sourceTxHash,
    destinationTxHash: r.destinationTxHash,
    sourceAmount: r.sourceAmount,
    destinationAmount: r.destinationAmount,
    errorCode: r.errorCode,
    intentId: r.intentId,
    attempts: r.attempts,
    refund: r.refundRecipient
      ? { recipient: getAddress(r.refundRecipient), intentId: r.refundIntentId, transactionHash: r.refundTxHash }
      : null,
    createdAt: r.createdAt.toISOString(),
    completedAt: iso(r.completedAt),
  };
}

/** The deposit as webhooks describe it (`deposit.{…}`), lowercase addresses as in every webhook. */
export const depositPart = (r: DepositRow) => ({
  transactionHash: r.txHash,
  chain: toCaip2(Number(r.chainId)),
  token: r.token,
  asset: r.token,
  amount: r.amount,
  sender: r.sender,
});
