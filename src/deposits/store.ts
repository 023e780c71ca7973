import type { Db, Tx } from '../db/types';
import { forgetUnlessAccepted } from '../intents/quote-store';
import type { DepositSettings } from './config';
import { queueStart, type QueuedStart } from '../outbox/store';
import { newestPage } from '../db/newest-page';
import type { DepositEvent, DepositVoidEvent } from './indexer-events';
import type { IntentOp } from '../intents/types';
import {
  type DepositStage,
  type DepositStart,
  type DepositTiming,
  refundWorkflowId,
  refundWorkflowType,
} from '../../workflows/contracts/deposit';
import { wireStatus } from '../../workflows/deposit-state';

export interface DepositRow {
  id: string;
  projectId: string;
  account: string;
  chainId: string;
  txHash: string;
  logIndex: number;
  token: string;
  amount: string;
  sender: string;
  blockNumber: string;
  targetChainId: string;
  targetToken: string;
  recipient: string;
  stage: DepositStage;
  errorCode: string | null;
  attempts: number;
  intentId: string | null;
  settlementLayer: string | null;
  sourceTxHash: string | null;
  destinationTxHash: string | null;
  sourceAmount: string | null;
  destinationAmount: string | null;
  refundRecipient: string | null;
  refundAttempts: number;
  refundIntentId: string | null;
  refundTxHash: string | null;
  refundedBy: 'intent' | 'transfer' | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** Every column of `deposits`, named as DepositRow names them. */
export const DEPOSIT = `id, project_id AS "projectId", account, chain_id AS "chainId", tx_hash AS "txHash", log_index AS "logIndex",
  token, amount, sender, block_number AS "blockNumber", target_chain_id AS "targetChainId",
  target_token AS "targetToken", recipient, stage, error_code AS "errorCode", attempts, intent_id AS "intentId",
  settlement_layer AS "settlementLayer", source_tx_hash AS "sourceTxHash", destination_tx_hash AS "destinationTxHash",
  source_amount AS "sourceAmount", destination_amount AS "destinationAmount", refund_recipient AS "refundRecipient",
  refund_attempts AS "refundAttempts", refund_intent_id AS "refundIntentId", refund_tx_hash AS "refundTxHash",
  refunded_by AS "refundedBy", created_at AS "createdAt", completed_at AS "completedAt"`;

/** A deposit's identity: its transfer in its transaction, wherever a reorg puts the log (occurrence: identical ones). */
export const TRANSFER = `chain_id = $1 AND tx_hash = $2 AND account = $3 AND token = $4 AND sender = $5 AND amount = $6
  AND occurrence = $7 AND stage <> 'voided'`;
export const transferOf = (e: DepositEvent | DepositVoidEvent) => [
  e.chainId,
  e.transactionHash.toLowerCase(),
  e.account.toLowerCase(),
  e.token.toLowerCase(),
  e.sender.toLowerCase(),
  e.amount,
  e.occurrence ?? 0,
];

export async function loadDeposit(db: Tx, id: string, lock = false): Promise<DepositRow | undefined> {
  const [row]: DepositRow[] = await db.query(
    `SELECT ${DEPOSIT} FROM deposits WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return row;
}

/** Where a deposit records its bridge's and its refund's attempts: their count and the current attempt's intent. */
const ATTEMPT_COLUMNS = {
  bridge: { attempts: 'attempts', intent: 'intent_id' },
  refund: { attempts: 'refund_attempts', intent: 'refund_intent_id' },
} as const;

/** The recorded count of a deposit's bridge or refund attempts, and the current attempt's intent. */
export const attemptOf = (r: DepositRow, kind: 'bridge' | 'refund') =>
  kind === 'bridge'
    ? { attempts: r.attempts, intentId: r.intentId }
    : { attempts: r.refundAttempts, intentId: r.refundIntentId };

/** Records attempt number `attempt` and its quoted intent, once (a repeated activity finds it recorded). */
export async function recordAttempt(
  db: Db,
  kind: 'bridge' | 'refund',
  id: string,
  intentId: string,
  attempt: number,
): Promise<void> {
  const { attempts, intent } = ATTEMPT_COLUMNS[kind];
  await db.query(
    `UPDATE deposits SET ${intent} = $2, ${attempts} = $3 WHERE id = $1 AND ${attempts} < $3 AND stage <> 'voided'`,
    [id, intentId, attempt],
  );
}

/**
 * Forgets an attempt's recorded quote (it lapsed before its submit, or its funds went), so the next call quotes
 * afresh; unless the intent core accepted it meanwhile (an overlapping activity retry's submit): then it stays.
 */
export async function forgetAttempt(
  db: Db,
  kind: 'bridge' | 'refund',
  id: string,
  intentId: string,
  attempt: number,
): Promise<void> {
  const { attempts, intent } = ATTEMPT_COLUMNS[kind];
  await forgetUnlessAccepted(db, intentId, (tx) =>
    tx.query(
      `UPDATE deposits SET ${attempts} = $3 - 1, ${intent} = NULL
       WHERE id = $1 AND ${attempts} = $3 AND ${intent} = $2 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $2)`,
      [id, intentId, attempt],
    ),
  );
}

/**
 * Nothing more can happen to what an intent does for its deposit: filled (the fill, proven where the indexer reads it
 * at the settlement depth, delivered the funds; the hold on the source stays with the ledger until the claim or the
 * release at `expires`), COMPLETED, or ended (FAILED, EXPIRED) with every reservation released.
 */
export async function intentIsFinal(db: Db, intentId: string): Promise<boolean> {
  const [row]: { status: string; filled: boolean; held: boolean }[] = await db.query(
    `SELECT status, fill IS NOT NULL AS filled,
       EXISTS (SELECT 1 FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1::text AND released_at IS NULL) AS held
     FROM intents WHERE id = $1::numeric`,
    [intentId],
  );
  return (
    !!row && (row.filled || row.status === 'COMPLETED' || (['FAILED', 'EXPIRED'].includes(row.status) && !row.held))
  );
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
  failed: ['rejected', 'refunding', 'voided'],
  refunded: ['refunded'],
};

/** Newest first; a page continues strictly below the previous page's lowest id (its nextCursor). */
export async function listDeposits(db: Db, projectId: string, f: DepositFilter) {
  const { page, more } = await newestPage<DepositRow>(db, {
    columns: DEPOSIT,
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
  return { deposits: page, nextCursor: more ? page[page.length - 1].id : null };
}

/** A deposit's timings, fixed when its workflow starts (a configuration change never alters a running one). */
export const depositTiming = ({ deposits: d }: DepositSettings): DepositTiming => ({
  expectedSeconds: d.expectedSeconds,
  bridgeExpectedSeconds: d.bridgeExpectedSeconds,
  bridgeRetries: d.bridgeRetries,
  retrySeconds: d.retrySeconds,
  fundsWaitSeconds: d.fundsWaitSeconds,
  bridgeTimeoutSeconds: d.bridgeTimeoutSeconds,
  refundAttempts: d.refundAttempts,
});
export const depositStart = (depositId: string, c: DepositSettings): DepositStart => ({
  depositId,
  timing: depositTiming(c),
});

/**
 * Queues the refund workflow of a deposit now `refunding` (in the caller's transaction; at most one per deposit),
 * with the deposit's timings (a recovery's: the configuration's at the time).
 */
export async function queueRefund(tx: Tx, depositId: string, timing: DepositTiming): Promise<QueuedStart> {
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
 * A rejected deposit (nothing was moved) goes back to its owner: `refunding` with its refund queued, in the caller's
 * transaction. Asking again for the same recipient answers the same recovery; undefined when it is not recoverable
 * (an unproven registration's deposit, ACCOUNT-2, only once the registration is proven: its refund would reserve).
 */
export async function markRecovering(
  tx: Tx,
  depositId: string,
  owner: string,
  timing: DepositTiming,
): Promise<{ row: DepositRow; start: QueuedStart } | undefined> {
  const [row]: DepositRow[] = await tx.query(
    `WITH u AS (UPDATE deposits SET stage = 'refunding', refund_recipient = $2
       WHERE id = $1 AND (stage = 'rejected' OR (stage = 'refunding' AND refund_recipient = $2))
         AND (error_code IS DISTINCT FROM 'ACCOUNT-2' OR EXISTS (SELECT 1 FROM deposit_accounts a
           WHERE a.address = deposits.account AND a.project_id = deposits.project_id AND a.proven_at IS NOT NULL))
       RETURNING ${DEPOSIT}) SELECT * FROM u`,
    [depositId, owner],
  );
  return row && { row, start: await queueRefund(tx, row.id, timing) };
}

/**
 * The refund happened, by the refund intent (its fill or claim) or by a transfer the indexer reported: refunded,
 * once. `by` decides the deposit's part in the project's credit (src/deposits/credit-store.ts).
 */
export async function markRefunded(
  tx: Tx,
  r: DepositRow,
  transactionHash: string,
  by: 'intent' | 'transfer',
): Promise<DepositRow | undefined> {
  const [row]: DepositRow[] = await tx.query(
    `WITH u AS (UPDATE deposits SET stage = 'refunded', refund_tx_hash = $2, refunded_by = $3, completed_at = now() WHERE id = $1 AND stage = 'refunding' RETURNING ${DEPOSIT})
     SELECT * FROM u`,
    [r.id, transactionHash.toLowerCase(), by],
  );
  return row;
}

/** The recorded USD price of a token symbol, if any. */
export async function findPriceUsd(db: Db, symbol: string): Promise<string | undefined> {
  const [price]: { usd: string }[] = await db.query('SELECT usd FROM prices WHERE symbol = $1', [symbol]);
  return price?.usd;
}

/** Whether the project approved the account's customer (an approved verification of the customer it is linked to). */
export async function isComplianceApproved(db: Db, projectId: string, account: string): Promise<boolean> {
  const [approved]: unknown[] = await db.query(
    `SELECT 1 FROM compliance_customers c JOIN verifications v ON v.project_id = c.project_id AND v.customer_id = c.customer_id
         WHERE c.project_id = $1 AND c.account = $2 AND v.status = 'approved'`,
    [projectId, account],
  );
  return !!approved;
}

/** A received deposit the checks refused: rejected with its error code. */
export async function markRejected(tx: Tx, id: string, code: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'rejected', error_code = $2, completed_at = now() WHERE id = $1 AND stage = 'received'",
    [id, code],
  );
}

/** A received deposit already where it should be: completed by its own transfer. */
export async function markCompletedDirect(tx: Tx, id: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'completed', source_tx_hash = tx_hash, destination_tx_hash = tx_hash, source_amount = amount, destination_amount = amount, completed_at = now() WHERE id = $1 AND stage = 'received'",
    [id],
  );
}

/** The recorded bridge intent was accepted: bridging, with its settlement layer and amounts. */
export async function markBridging(
  tx: Tx,
  id: string,
  intentId: string,
  bridge: { settlementLayer: string; sourceAmount: string; destinationAmount: string },
): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'bridging', settlement_layer = $3, source_amount = $4, destination_amount = $5 WHERE id = $1 AND intent_id = $2 AND stage IN ('received', 'bridging')",
    [id, intentId, bridge.settlementLayer, bridge.sourceAmount, bridge.destinationAmount],
  );
}

/** The bridge intent moved the funds: completed, with its source (claim) and destination (fill) transactions. */
export async function markBridgeCompleted(
  tx: Tx,
  id: string,
  intentId: string,
  sourceTxHash: string | null,
  destinationTxHash: string | null,
): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'completed', source_tx_hash = $3, destination_tx_hash = $4, completed_at = now() WHERE id = $1 AND intent_id = $2 AND stage = 'bridging'",
    [id, intentId, sourceTxHash, destinationTxHash],
  );
}

/** Nothing more will be tried: refunding to the sender, with the error code. */
export async function markRefunding(tx: Tx, id: string, code: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'refunding', error_code = $2, refund_recipient = sender WHERE id = $1 AND stage IN ('received', 'bridging')",
    [id, code],
  );
}

/** What a deposit reads of an intent it moves, once final. */
export interface IntentOutcome {
  status: string;
  fill: { transactionHash: string } | null;
  claims: Record<string, { transactionHash: string }>;
  operation: IntentOp;
}

export async function loadIntentOutcome(db: Db, intentId: string): Promise<IntentOutcome | undefined> {
  const [intent]: IntentOutcome[] = await db.query(
    'SELECT status, fill, claims, operation FROM intents WHERE id = $1',
    [intentId],
  );
  return intent;
}
