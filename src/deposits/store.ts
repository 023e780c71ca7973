import type { DataSource, EntityManager } from 'typeorm';
import { getAddress } from 'viem';
import { toCaip2 } from '../chains/registry';
import type { Config } from '../config';
import { queueSignals, queueStart, type QueuedSignal, type QueuedStart } from '../outbox/store';
import { iso, newestPage } from '../db/newest-page';
import { emitEvent } from '../webhooks/event-store';
import type { WebhookType } from '../webhooks/types';
import {
  depositWorkflowId,
  type DepositStage,
  type DepositStart,
  type DepositTiming,
  intentSettledSignal,
  refundWorkflowId,
  refundWorkflowType,
} from '../../workflows/contracts/deposit';
import { wireStatus } from '../../workflows/deposit-state';

export interface DepositRow {
  id: string;
  project_id: string;
  account: string;
  chain_id: string;
  tx_hash: string;
  log_index: number;
  token: string;
  amount: string;
  sender: string;
  block_number: string;
  target_chain_id: string;
  target_token: string;
  recipient: string;
  stage: DepositStage;
  error_code: string | null;
  attempts: number;
  intent_id: string | null;
  settlement_layer: string | null;
  source_tx_hash: string | null;
  destination_tx_hash: string | null;
  source_amount: string | null;
  destination_amount: string | null;
  refund_recipient: string | null;
  refund_attempts: number;
  refund_intent_id: string | null;
  refund_tx_hash: string | null;
  refunded_by: 'intent' | 'transfer' | null;
  created_at: Date;
  completed_at: Date | null;
}

export async function loadDeposit(
  db: DataSource | EntityManager,
  id: string,
  lock = false,
): Promise<DepositRow | undefined> {
  const [row]: DepositRow[] = await db.query(`SELECT * FROM deposits WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row;
}

/**
 * Runs `update` (which forgets a recorded quote, guarded by `NOT EXISTS (SELECT 1 FROM intents WHERE id = <quote>)`)
 * and voids the quote after taking its row lock: a submit of that quote still committing holds the lock, so its
 * intent is seen and an accepted quote is never forgotten; a submit that comes later (an overlapping activity retry
 * that read the quote before it was forgotten) finds no quote and is refused (404). So a deposit or withdrawal never
 * has two live intents: the forgotten one can no longer be accepted once the next attempt quotes afresh.
 */
async function forgetUnlessAccepted(
  db: DataSource,
  quoteNonce: string,
  update: string,
  params: unknown[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM quotes WHERE nonce = $1 FOR UPDATE', [quoteNonce]);
    await tx.query(update, params);
    await tx.query(
      'DELETE FROM quotes q WHERE nonce = $1 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $1) AND NOT EXISTS (SELECT 1 FROM bundles WHERE id = $1)',
      [quoteNonce],
    );
  });
}

/** Where a deposit records its bridge's and its refund's attempts: their count and the current attempt's intent. */
export const ATTEMPT_COLUMNS = {
  bridge: { attempts: 'attempts', intent: 'intent_id' },
  refund: { attempts: 'refund_attempts', intent: 'refund_intent_id' },
} as const;

/** Records attempt number `attempt` and its quoted intent, once (a repeated activity finds it recorded). */
export async function recordAttempt(
  db: DataSource,
  kind: 'bridge' | 'refund',
  id: string,
  intentId: string,
  attempt: number,
): Promise<void> {
  const { attempts, intent } = ATTEMPT_COLUMNS[kind];
  await db.query(`UPDATE deposits SET ${intent} = $2, ${attempts} = $3 WHERE id = $1 AND ${attempts} < $3`, [
    id,
    intentId,
    attempt,
  ]);
}

/**
 * Forgets an attempt's recorded quote (it lapsed before its submit, or its funds went), so the next call quotes
 * afresh; unless the intent core accepted it meanwhile (an overlapping activity retry's submit): then it stays.
 */
export async function forgetAttempt(
  db: DataSource,
  kind: 'bridge' | 'refund',
  id: string,
  intentId: string,
  attempt: number,
): Promise<void> {
  const { attempts, intent } = ATTEMPT_COLUMNS[kind];
  await forgetUnlessAccepted(
    db,
    intentId,
    `UPDATE deposits SET ${attempts} = $3 - 1, ${intent} = NULL
     WHERE id = $1 AND ${attempts} = $3 AND ${intent} = $2 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $2)`,
    [id, intentId, attempt],
  );
}

/** Nothing more can happen to an intent's funds: COMPLETED, or ended (FAILED, EXPIRED) with every reservation released. */
export async function intentIsFinal(db: DataSource, intentId: string): Promise<boolean> {
  const [row]: { status: string; held: boolean }[] = await db.query(
    `SELECT status, EXISTS (SELECT 1 FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1::text AND released_at IS NULL) AS held
     FROM intents WHERE id = $1::numeric`,
    [intentId],
  );
  return !!row && (row.status === 'COMPLETED' || (['FAILED', 'EXPIRED'].includes(row.status) && !row.held));
}

/**
 * Queues, in the caller's transaction, a report of these intents to the deposits they move (as bridge or refund):
 * their workflows then ask the ledger again whether the intent is final.
 */
export async function queueIntentReports(
  tx: EntityManager,
  intentIds: string[],
  status: string,
): Promise<QueuedSignal[]> {
  if (!intentIds.length) return [];
  const rows: { id: string; intent: string; bridge: boolean }[] = await tx.query(
    `SELECT d.id, i.id::text AS intent, d.intent_id = i.id AS bridge
     FROM unnest($1::numeric[]) AS i(id) JOIN deposits d ON d.intent_id = i.id OR d.refund_intent_id = i.id`,
    [intentIds],
  );
  return queueSignals(
    tx,
    rows.map((r) => ({
      workflowId: r.bridge ? depositWorkflowId(r.id) : refundWorkflowId(r.id),
      signal: intentSettledSignal.name,
      payload: { intentId: r.intent, status },
    })),
  );
}

/** A withdrawal whose quote was not accepted: its nonce is free for the same signed request again. */
export async function forgetWithdrawalQuote(
  db: DataSource,
  account: string,
  projectId: string,
  nonce: string,
  intentId: string,
): Promise<void> {
  await forgetUnlessAccepted(
    db,
    intentId,
    'UPDATE deposit_withdrawals SET intent_id = NULL WHERE account = $1 AND project_id = $4 AND nonce = $2 AND intent_id = $3 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $3)',
    [account, nonce, intentId, projectId],
  );
}

/** The hosted product's record (docs/deposit-processor.md, Widget routes: GET /deposits). */
export function presentDeposit(r: DepositRow) {
  return {
    id: r.id,
    chain: toCaip2(Number(r.chain_id)),
    txHash: r.tx_hash,
    logIndex: r.log_index,
    token: getAddress(r.token),
    amount: r.amount,
    sender: getAddress(r.sender),
    account: getAddress(r.account),
    recipient: getAddress(r.recipient),
    targetChain: toCaip2(Number(r.target_chain_id)),
    targetToken: getAddress(r.target_token),
    status: wireStatus(r.stage),
    stage: r.stage,
    sourceTxHash: r.source_tx_hash,
    destinationTxHash: r.destination_tx_hash,
    sourceAmount: r.source_amount,
    destinationAmount: r.destination_amount,
    errorCode: r.error_code,
    intentId: r.intent_id,
    attempts: r.attempts,
    refund: r.refund_recipient
      ? { recipient: getAddress(r.refund_recipient), intentId: r.refund_intent_id, transactionHash: r.refund_tx_hash }
      : null,
    createdAt: r.created_at.toISOString(),
    completedAt: iso(r.completed_at),
  };
}

export interface DepositFilter {
  txHash?: string;
  account?: string;
  status?: ReturnType<typeof wireStatus>;
  limit: number;
  cursor?: string;
}

const STAGES_OF: Record<ReturnType<typeof wireStatus>, DepositStage[]> = {
  processing: ['received', 'bridging'],
  completed: ['completed'],
  failed: ['rejected', 'refunding'],
  refunded: ['refunded'],
};

/** Newest first; a page continues strictly below the previous page's lowest id (its nextCursor). */
export async function listDeposits(db: DataSource, projectId: string, f: DepositFilter) {
  const { page, more } = await newestPage<DepositRow>(db, {
    columns: '*',
    table: 'deposits',
    key: 'id',
    projectId,
    limit: f.limit,
    conditions: [
      ['tx_hash = ?', f.txHash?.toLowerCase()],
      ['account = ?', f.account?.toLowerCase()],
      ['stage = ANY(?)', f.status && STAGES_OF[f.status]],
      ['id < ?', f.cursor],
    ],
  });
  return { deposits: page.map(presentDeposit), nextCursor: more ? page[page.length - 1].id : null };
}

/** The deposit as webhooks describe it (`deposit.{…}`), lowercase addresses as in every webhook. */
export const depositPart = (r: DepositRow) => ({
  transactionHash: r.tx_hash,
  chain: toCaip2(Number(r.chain_id)),
  token: r.token,
  asset: r.token,
  amount: r.amount,
  sender: r.sender,
});

/**
 * Emits one lifecycle webhook of a deposit in the caller's transaction (the one that persisted the step), keyed by
 * the step so a repeated activity emits it once.
 */
export async function emitDepositEvent(
  tx: EntityManager,
  r: DepositRow,
  type: WebhookType,
  step: string,
  payload: Record<string, unknown>,
): Promise<void> {
  await emitEvent(tx, {
    projectId: r.project_id,
    type,
    idempotencyKey: `deposit:${r.id}:${step}`,
    depositId: r.id,
    payload: { depositId: r.id, account: r.account, ...payload },
  });
}

/** A deposit's timings, fixed when its workflow starts (a configuration change never alters a running one). */
export const depositTiming = ({ deposits: d }: Config): DepositTiming => ({
  expectedSeconds: d.expectedSeconds,
  bridgeExpectedSeconds: d.bridgeExpectedSeconds,
  bridgeRetries: d.bridgeRetries,
  retrySeconds: d.retrySeconds,
  fundsWaitSeconds: d.fundsWaitSeconds,
  bridgeTimeoutSeconds: d.bridgeTimeoutSeconds,
  refundAttempts: d.refundAttempts,
});
export const depositStart = (depositId: string, c: Config): DepositStart => ({ depositId, timing: depositTiming(c) });

/**
 * Queues the refund workflow of a deposit now `refunding` (in the caller's transaction; at most one per deposit),
 * with the deposit's timings (a recovery's: the configuration's at the time).
 */
export async function queueRefund(tx: EntityManager, depositId: string, timing: DepositTiming): Promise<QueuedStart> {
  const start: QueuedStart = {
    workflowId: refundWorkflowId(depositId),
    workflowType: refundWorkflowType,
    args: [{ depositId, timing } satisfies DepositStart],
    searchAttributes: {},
    summary: `Refund of deposit ${depositId}`,
  };
  await queueStart(tx, start);
  return start;
}

/**
 * A rejected deposit (nothing was moved) goes back to its owner: `refunding` with its refund queued, in one
 * transaction. Asking again for the same recipient answers the same recovery; undefined when it is not recoverable.
 */
export async function beginRecovery(
  db: DataSource,
  depositId: string,
  owner: string,
  timing: DepositTiming,
): Promise<{ row: DepositRow; start: QueuedStart } | undefined> {
  return db.transaction(async (tx) => {
    const [row]: DepositRow[] = await tx.query(
      `WITH u AS (UPDATE deposits SET stage = 'refunding', refund_recipient = $2
         WHERE id = $1 AND (stage = 'rejected' OR (stage = 'refunding' AND refund_recipient = $2)) RETURNING *) SELECT * FROM u`,
      [depositId, owner],
    );
    return row && { row, start: await queueRefund(tx, row.id, timing) };
  });
}

/**
 * The refund happened, by the refund intent (its fill or claim) or by a transfer the indexer reported: refunded,
 * once. `by` decides the deposit's part in the project's credit (src/deposits/credit.ts).
 */
export async function markRefunded(
  tx: EntityManager,
  r: DepositRow,
  transactionHash: string,
  by: 'intent' | 'transfer',
): Promise<DepositRow | undefined> {
  const [row]: DepositRow[] = await tx.query(
    `WITH u AS (UPDATE deposits SET stage = 'refunded', refund_tx_hash = $2, refunded_by = $3, completed_at = now() WHERE id = $1 AND stage = 'refunding' RETURNING *)
     SELECT * FROM u`,
    [r.id, transactionHash.toLowerCase(), by],
  );
  return row;
}

export const emitRefunded = (tx: EntityManager, r: DepositRow, amount: string) =>
  emitDepositEvent(tx, r, 'deposit-refunded', 'refunded', {
    deposit: depositPart(r),
    refund: {
      transactionHash: r.refund_tx_hash,
      chain: toCaip2(Number(r.chain_id)),
      asset: r.token,
      amount,
      recipient: r.refund_recipient,
    },
  });
