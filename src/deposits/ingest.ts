import type { Tx } from '../db/types';
import type { ChainRegistry } from '../chains/registry';
import { toCaip2 } from '../chains/registry';
import type { DepositSettings } from './config';
import { queueStart, type QueuedStart } from '../outbox/store';
import { emitEvent } from '../webhooks/event-store';
import type {
  DepositEvent,
  DepositIndexerEvent,
  DepositRefundEvent,
  DepositVoidEvent,
  OnrampOrderEvent,
} from './indexer-events';
import { depositWorkflowId, depositWorkflowType } from '../../workflows/contracts/deposit';
import { findOwningRegistration } from './account-store';
import { UNSUPPORTED_TOKEN } from './checks';
import { depositStart, type DepositRow, markRefunded, markRejected } from './store';
import {
  countUnsupported,
  insertDeposit,
  lockDepositAwaitingRefund,
  lockVoidable,
  markVoided,
  recordOwnArrival,
  voidOutcome,
} from './arrival-store';
import { emitDepositEvent, emitRefunded } from './deposit-webhooks';
import { depositPart } from './presenter';

export interface DepositIngestDeps {
  registry: ChainRegistry;
  config: DepositSettings;
}

/** A voided deposit's intent that nothing has paid yet: failed and its hold released by the batch (src/ingestion/ingest.ts). */
export interface CancelledIntent {
  intentId: string;
  chainId: number;
}

/**
 * Applies the deposit processor's indexer events inside the batch's transaction and returns the starts to perform
 * after its commit (deposit workflows and webhook deliveries; the outbox sweeper performs any this process does not),
 * and the intents of voided deposits to cancel.
 */
export async function applyDepositEvents(
  tx: Tx,
  events: DepositIndexerEvent[],
  deps: DepositIngestDeps,
): Promise<{ starts: QueuedStart[]; cancelled: CancelledIntent[] }> {
  const starts: QueuedStart[] = [];
  const cancelled: CancelledIntent[] = [];
  for (const e of events) {
    if (e.type === 'deposit') {
      const start = await recordDeposit(tx, e, deps);
      if (start) starts.push(start);
    } else if (e.type === 'deposit-void') {
      const intentId = await recordVoid(tx, e);
      if (intentId) cancelled.push({ intentId, chainId: e.chainId });
    } else if (e.type === 'deposit-refund') await recordRefund(tx, e);
    else await forwardOnramp(tx, e);
  }
  return { starts, cancelled };
}

/**
 * A deposit whose transaction a reorg dropped brought no funds: voided with `deposit-voided`, so its bridge never
 * starts (the workflow's next step finds it voided), an accepted intent of it nothing has paid yet is cancelled (the
 * returned id: failed, its hold released, its claim authorization refused), and a quote not yet accepted is forgotten.
 * A deposit whose funds already moved (a fill or claim of its intent, a completed bridge or refund) stands.
 */
async function recordVoid(tx: Tx, e: DepositVoidEvent): Promise<string | undefined> {
  const r = await lockVoidable(tx, e);
  if (!r) return undefined;
  const outcome = await voidOutcome(tx, r);
  if (outcome.kind === 'moved') return undefined;
  await markVoided(tx, r.id);
  await emitDepositEvent(tx, r, 'deposit-voided', 'voided', {
    errorCode: 'REORG-1',
    message: "The deposit's transaction was dropped from the chain by a reorganization: no funds arrived",
    intentId: outcome.kind === 'cancel' ? outcome.intentId : null,
    deposit: depositPart(r),
  });
  return outcome.kind === 'cancel' ? outcome.intentId : undefined;
}

/**
 * A transfer into a registered account becomes a deposit (once per chain, transaction and log index) of the
 * registration it belongs to (findOwningRegistration: one project, so its funds are credited once), announced by
 * `deposit-received` and handed to its workflow. Transfers into unregistered accounts are ignored, and so is the
 * arrival of the account's own intent (its `fillNonce`: a bridge to the account itself), which would credit the
 * bridged deposit twice. The event decides, whatever was ingested before it: the intent is recorded at its submit,
 * before any fill, and the fill's own report may come before or after the transfer's.
 */
async function recordDeposit(tx: Tx, e: DepositEvent, deps: DepositIngestDeps): Promise<QueuedStart | undefined> {
  if (e.fillNonce !== undefined && (await recordOwnArrival(tx, e, e.fillNonce))) return undefined;
  if (!deps.registry.token(e.chainId, e.token)) return recordUnsupported(tx, e, deps);
  const row = await insertDeposit(tx, e);
  if (!row) return undefined;
  const start: QueuedStart = {
    workflowId: depositWorkflowId(row.id),
    workflowType: depositWorkflowType,
    args: [depositStart(row.id, deps.config)],
    searchAttributes: {
      Account: row.account,
      Project: row.projectId,
      Chains: [...new Set([row.chainId, row.targetChainId])].map(String),
    },
    summary: `Deposit ${row.id}: ${row.amount} of ${row.token} on ${toCaip2(Number(row.chainId))} into ${row.account}`,
  };
  await queueStart(tx, start);
  await emitReceived(tx, row);
  return start;
}

/** `deposit-received`: the deposit as recorded. */
const emitReceived = (tx: Tx, row: DepositRow) =>
  emitDepositEvent(tx, row, 'deposit-received', 'received', {
    chain: toCaip2(Number(row.chainId)),
    token: row.token,
    amount: row.amount,
    transactionHash: row.txHash,
    sender: row.sender,
  });

/**
 * A token the service does not support moves nothing and needs no workflow: the period's first such transfer into the
 * account is recorded as a deposit rejected with TOKEN-1 (its two webhooks; recoverable by a transfer made outside),
 * the others of the period only counted (a contract may emit thousands of Transfer logs for nothing).
 */
async function recordUnsupported(tx: Tx, e: DepositEvent, deps: DepositIngestDeps): Promise<undefined> {
  if (!(await findOwningRegistration(tx, e.account))) return undefined;
  if (!(await countUnsupported(tx, e.account, deps.config.deposits.unsupportedReportSeconds))) return undefined;
  const row = await insertDeposit(tx, e);
  if (!row) return undefined;
  await markRejected(tx, row.id, 'TOKEN-1');
  await emitReceived(tx, row);
  await emitDepositEvent(tx, row, 'deposit-rejected', 'rejected', {
    errorCode: 'TOKEN-1',
    message: UNSUPPORTED_TOKEN,
    deposit: depositPart(row),
  });
  return undefined;
}

/**
 * A transfer back to the refund recipient of a deposit awaiting it (the oldest one it matches) of at least the
 * deposit's amount: refunded. A smaller transfer refunds nothing (an external refund returns the whole deposit).
 */
async function recordRefund(tx: Tx, e: DepositRefundEvent): Promise<void> {
  const awaiting = await lockDepositAwaitingRefund(tx, e);
  const refunded = awaiting && (await markRefunded(tx, awaiting, e.transactionHash, 'transfer'));
  if (refunded) await emitRefunded(tx, refunded, e.amount);
}

/** Forwarded to the project the account's deposits belong to, once per order and status (partners report at least once). */
async function forwardOnramp(tx: Tx, e: OnrampOrderEvent): Promise<void> {
  const account = await findOwningRegistration(tx, e.account);
  if (!account) return;
  const payload = {
    orderId: e.orderId,
    orderUuid: e.orderUuid ?? null,
    account: account.address,
    source: e.source ?? 'onramp',
    status: e.status,
    rawStatus: e.rawStatus ?? e.status,
    terminal: e.status === 'completed' || e.status === 'failed',
    token: e.token?.toLowerCase() ?? null,
    cryptoAmount: e.cryptoAmount ?? null,
    fiat: e.fiat
      ? {
          currency: e.fiat.currency,
          amount: e.fiat.amount,
          amountPlusFees: e.fiat.amountPlusFees ?? null,
          feeUsd: e.fiat.feeUsd ?? null,
        }
      : null,
    transactionId: e.transactionId ?? null,
    method: e.method ?? null,
    exchange: e.exchange ?? null,
  };
  await emitEvent(tx, {
    projectId: account.projectId,
    type: 'onramp-order',
    idempotencyKey: `onramp:${e.orderId}:${e.status}`,
    payload,
  });
}
