import type { Tx } from '../db/types';
import { toCaip2 } from '../chains/registry';
import { emitEvent } from '../webhooks/event-store';
import type { WebhookType } from '../webhooks/types';
import { depositPart } from './presenter';
import type { DepositRow } from './store';

/**
 * Emits one lifecycle webhook of a deposit in the caller's transaction (the one that persisted the step), keyed by
 * the step so a repeated activity emits it once.
 */
export async function emitDepositEvent(
  tx: Tx,
  r: DepositRow,
  type: WebhookType,
  step: string,
  payload: Record<string, unknown>,
): Promise<void> {
  await emitEvent(tx, {
    projectId: r.projectId,
    type,
    idempotencyKey: `deposit:${r.id}:${step}`,
    depositId: r.id,
    payload: { depositId: r.id, account: r.account, ...payload },
  });
}

export const emitRefunded = (tx: Tx, r: DepositRow, amount: string) =>
  emitDepositEvent(tx, r, 'deposit-refunded', 'refunded', {
    deposit: depositPart(r),
    refund: {
      transactionHash: r.refundTxHash,
      chain: toCaip2(Number(r.chainId)),
      asset: r.token,
      amount,
      recipient: r.refundRecipient,
    },
  });
