import type { DataSource, EntityManager } from 'typeorm';
import { forgetQuote, forgetUnlessAccepted, lockQuoteRow } from '../intents/quote-store';
import type { DepositSettings } from './config';
import { queueSignals, queueStart, type QueuedSignal, type QueuedStart } from '../outbox/store';
import { newestPage } from '../db/newest-page';
import { plainList } from '../db/plain-list';
import { preparedQuery } from '../db/prepared';
import { WALLET } from '../ledger/ledger';
import type { DepositEvent, DepositRefundEvent, DepositVoidEvent } from './indexer-events';
import type { IntentOp } from '../intents/types';
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
import { OWNING_REGISTRATION } from './account-store';

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
const DEPOSIT = `id, project_id AS "projectId", account, chain_id AS "chainId", tx_hash AS "txHash", log_index AS "logIndex",
  token, amount, sender, block_number AS "blockNumber", target_chain_id AS "targetChainId",
  target_token AS "targetToken", recipient, stage, error_code AS "errorCode", attempts, intent_id AS "intentId",
  settlement_layer AS "settlementLayer", source_tx_hash AS "sourceTxHash", destination_tx_hash AS "destinationTxHash",
  source_amount AS "sourceAmount", destination_amount AS "destinationAmount", refund_recipient AS "refundRecipient",
  refund_attempts AS "refundAttempts", refund_intent_id AS "refundIntentId", refund_tx_hash AS "refundTxHash",
  refunded_by AS "refundedBy", created_at AS "createdAt", completed_at AS "completedAt"`;

/** A deposit's identity: its transfer in its transaction, wherever a reorg puts the log (occurrence: identical ones). */
const TRANSFER = `chain_id = $1 AND tx_hash = $2 AND account = $3 AND token = $4 AND sender = $5 AND amount = $6
  AND occurrence = $7 AND stage <> 'voided'`;
const transferOf = (e: DepositEvent | DepositVoidEvent) => [
  e.chainId,
  e.transactionHash.toLowerCase(),
  e.account.toLowerCase(),
  e.token.toLowerCase(),
  e.sender.toLowerCase(),
  e.amount,
  e.occurrence ?? 0,
];

export async function loadDeposit(
  db: DataSource | EntityManager,
  id: string,
  lock = false,
): Promise<DepositRow | undefined> {
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
  db: DataSource,
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
  db: DataSource,
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
export async function intentIsFinal(db: DataSource, intentId: string): Promise<boolean> {
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

/** A reservation of a session intent whose funds a newer snapshot shows gone (goneSessionHolds). */
export interface GoneHold {
  reservationId: string;
  intentId: string;
  chainId: number;
  token: string;
  held: string;
  balance: string;
  block: string;
}

/**
 * The reservations of these accounts' session intents (the processor's bridges, refunds and withdrawals) not filled,
 * claimed or ended yet, that the stored snapshot of their balance shows short: it holds less than the reservation, and
 * is of a later block than the one the reservation was checked against (a snapshot from before it proves nothing).
 * Their funds left the account, so the intent can never be pulled.
 */
export async function goneSessionHolds(tx: EntityManager, accounts: string[]): Promise<GoneHold[]> {
  if (!accounts.length) return [];
  return preparedQuery(
    tx,
    `SELECT r.id::text AS "reservationId", r.owner_id AS "intentId", r.chain_id::int AS "chainId", r.token,
       r.amount::text AS held, b.amount::text AS balance, b.block_number::text AS block
     FROM reservations r
     JOIN intents i ON i.id::text = r.owner_id
     JOIN LATERAL (
       SELECT amount, block_number FROM wallet_balances w
         WHERE r.lock_tag = '${WALLET}' AND w.account = r.account AND w.chain_id = r.chain_id AND w.token = r.token
       UNION ALL
       SELECT amount, block_number FROM lock_balances l
         WHERE l.account = r.account AND l.chain_id = r.chain_id AND l.token = r.token AND l.lock_tag = r.lock_tag) b ON true
     WHERE r.account = ANY(string_to_array($1, ',')) AND r.owner_kind = 'intent' AND r.released_at IS NULL
       AND r.release_after_block IS NULL AND b.block_number > r.basis_block AND b.amount < r.amount
       AND i.signed_by_session AND i.status IN ('PENDING', 'PRECONFIRMED') AND i.fill IS NULL AND i.claims = '{}'::jsonb
     ORDER BY r.id`,
    [plainList(accounts)],
  );
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
export async function listDeposits(db: DataSource, projectId: string, f: DepositFilter) {
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
 * A rejected deposit (nothing was moved) goes back to its owner: `refunding` with its refund queued, in the caller's
 * transaction. Asking again for the same recipient answers the same recovery; undefined when it is not recoverable
 * (an unproven registration's deposit, ACCOUNT-2, only once the registration is proven: its refund would reserve).
 */
export async function markRecovering(
  tx: EntityManager,
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
  tx: EntityManager,
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
export async function findPriceUsd(db: DataSource, symbol: string): Promise<string | undefined> {
  const [price]: { usd: string }[] = await db.query('SELECT usd FROM prices WHERE symbol = $1', [symbol]);
  return price?.usd;
}

/** Whether the project approved the account's customer (an approved verification of the customer it is linked to). */
export async function isComplianceApproved(db: DataSource, projectId: string, account: string): Promise<boolean> {
  const [approved]: unknown[] = await db.query(
    `SELECT 1 FROM compliance_customers c JOIN verifications v ON v.project_id = c.project_id AND v.customer_id = c.customer_id
         WHERE c.project_id = $1 AND c.account = $2 AND v.status = 'approved'`,
    [projectId, account],
  );
  return !!approved;
}

/** A received deposit the checks refused: rejected with its error code. */
export async function markRejected(tx: EntityManager, id: string, code: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'rejected', error_code = $2, completed_at = now() WHERE id = $1 AND stage = 'received'",
    [id, code],
  );
}

/** A received deposit already where it should be: completed by its own transfer. */
export async function markCompletedDirect(tx: EntityManager, id: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'completed', source_tx_hash = tx_hash, destination_tx_hash = tx_hash, source_amount = amount, destination_amount = amount, completed_at = now() WHERE id = $1 AND stage = 'received'",
    [id],
  );
}

/** The recorded bridge intent was accepted: bridging, with its settlement layer and amounts. */
export async function markBridging(
  tx: EntityManager,
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
  tx: EntityManager,
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
export async function markRefunding(tx: EntityManager, id: string, code: string): Promise<void> {
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

export async function loadIntentOutcome(db: DataSource, intentId: string): Promise<IntentOutcome | undefined> {
  const [intent]: IntentOutcome[] = await db.query(
    'SELECT status, fill, claims, operation FROM intents WHERE id = $1',
    [intentId],
  );
  return intent;
}

/**
 * Records a transfer into the account as a deposit of the registration it belongs to (OWNING_REGISTRATION), once per
 * transfer (TRANSFER); undefined when it was recorded before or the account is not registered. The same transfer
 * reported at another place (its transaction mined again in another block after a reorg) moves the record there.
 */
export async function insertDeposit(tx: EntityManager, e: DepositEvent): Promise<DepositRow | undefined> {
  const [row]: (DepositRow & { inserted: boolean })[] = await tx.query(
    `INSERT INTO deposits (project_id, account, chain_id, tx_hash, log_index, token, amount, sender, block_number, target_chain_id, target_token, recipient, occurrence)
     SELECT a.project_id, a.address, $2, $3, $4, $5, $6, $7, $8, a.target_chain_id, a.target_token, a.recipient, $9 FROM (${OWNING_REGISTRATION}) a
     ON CONFLICT (chain_id, tx_hash, account, token, sender, amount, occurrence) WHERE stage <> 'voided'
     DO UPDATE SET log_index = EXCLUDED.log_index, block_number = EXCLUDED.block_number
       WHERE (deposits.log_index, deposits.block_number) IS DISTINCT FROM (EXCLUDED.log_index, EXCLUDED.block_number)
     RETURNING ${DEPOSIT}, xmax = 0 AS inserted`,
    [
      e.account.toLowerCase(),
      e.chainId,
      e.transactionHash.toLowerCase(),
      e.logIndex,
      e.token.toLowerCase(),
      e.amount,
      e.sender.toLowerCase(),
      e.blockNumber,
      e.occurrence ?? 0,
    ],
  );
  return row?.inserted ? recorded(row) : undefined;
}
const recorded = ({ inserted: _, ...row }: DepositRow & { inserted: boolean }): DepositRow => row;

/**
 * The deposit a void names, locked, with the quote of its current attempt's intent locked first (the order a
 * submit and a forgotten attempt take them: quote, then deposit), so an intent being accepted is seen.
 */
export async function lockVoidable(tx: EntityManager, e: DepositVoidEvent): Promise<DepositRow | undefined> {
  const [found]: DepositRow[] = await tx.query(`SELECT ${DEPOSIT} FROM deposits WHERE ${TRANSFER}`, transferOf(e));
  if (!found) return undefined;
  const attempt = currentIntent(found);
  if (attempt) await lockQuoteRow(tx, attempt);
  const [row]: DepositRow[] = await tx.query(`SELECT ${DEPOSIT} FROM deposits WHERE id = $1 FOR UPDATE`, [found.id]);
  return row && currentIntent(row) === attempt ? row : lockVoidable(tx, e);
}

/** The intent of the step a deposit is at: its refund's while refunding, else its bridge's. */
const currentIntent = (r: DepositRow) => (r.stage === 'refunding' ? r.refundIntentId : r.intentId);

/**
 * What voiding a locked deposit does to the intent of its current step: none to cancel (no intent, or only a quote,
 * which is forgotten so it can never be accepted); `cancel` an accepted intent nothing has paid yet; `moved` when a
 * fill or claim of it was recorded, or the deposit completed or was refunded by it: the funds already left and the
 * deposit stands.
 */
export async function voidOutcome(
  tx: EntityManager,
  r: DepositRow,
): Promise<{ kind: 'none' } | { kind: 'cancel'; intentId: string } | { kind: 'moved' }> {
  if (r.stage === 'refunded' || (r.stage === 'completed' && r.intentId)) return { kind: 'moved' };
  const intentId = currentIntent(r);
  if (!intentId || r.stage === 'completed') return { kind: 'none' };
  const [intent]: { paid: boolean }[] = await tx.query(
    "SELECT fill IS NOT NULL OR claims <> '{}'::jsonb AS paid FROM intents WHERE id = $1",
    [intentId],
  );
  if (!intent) {
    await forgetQuote(tx, intentId);
    return { kind: 'none' };
  }
  return intent.paid ? { kind: 'moved' } : { kind: 'cancel', intentId };
}

/** A deposit whose transfer a reorg dropped: voided, whatever step it was at (REORG-1). */
export async function markVoided(tx: EntityManager, id: string): Promise<void> {
  await tx.query(
    "UPDATE deposits SET stage = 'voided', error_code = 'REORG-1', completed_at = now() WHERE id = $1 AND stage <> 'voided'",
    [id],
  );
}

/**
 * Whether the reported transfer is the arrival of one of the account's own intents: the fill of `fillNonce` is that
 * of an intent a project's session signer signed for the account (the deposit processor's bridge, refund or
 * withdrawal) that pays the account itself on this chain. Its funds were the account's before they moved, so they
 * are no new deposit. A bridge's arrival records its destination transaction, unless its fill's report did already.
 */
export async function recordOwnArrival(tx: EntityManager, e: DepositEvent, fillNonce: string): Promise<boolean> {
  const own: unknown[] = await tx.query(
    `WITH own AS (
       SELECT id FROM intents WHERE id = $1::numeric AND lower(account) = $2 AND signed_by_session
         AND destination_chain_id = $3 AND lower(operation->'elements'->0->'mandate'->>'recipient') = $2),
     arrived AS (
       UPDATE deposits d SET destination_tx_hash = $4 FROM own
       WHERE d.intent_id = own.id AND d.recipient = $2 AND d.destination_tx_hash IS NULL)
     SELECT 1 FROM own`,
    [fillNonce, e.account.toLowerCase(), e.chainId, e.transactionHash.toLowerCase()],
  );
  return own.length > 0;
}

/** The oldest deposit awaiting the reported refund transfer (of at least its amount), locked. */
export async function lockDepositAwaitingRefund(
  tx: EntityManager,
  e: DepositRefundEvent,
): Promise<DepositRow | undefined> {
  const [awaiting]: DepositRow[] = await tx.query(
    `SELECT ${DEPOSIT} FROM deposits WHERE account = $1 AND chain_id = $2 AND token = $3 AND refund_recipient = $4 AND stage = 'refunding' AND amount <= $5 ORDER BY id LIMIT 1 FOR UPDATE`,
    [e.account.toLowerCase(), e.chainId, e.token.toLowerCase(), e.recipient.toLowerCase(), e.amount],
  );
  return awaiting;
}

/**
 * Counts a transfer of an unsupported token into the account in its period (`periodSeconds` long, from the epoch);
 * whether it is the period's first, the one recorded.
 */
export async function countUnsupported(tx: EntityManager, account: string, periodSeconds: number): Promise<boolean> {
  const [row]: { transfers: string }[] = await tx.query(
    `INSERT INTO unsupported_transfers (account, period_start, transfers)
     VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
     ON CONFLICT (account, period_start) DO UPDATE SET transfers = unsupported_transfers.transfers + 1
     RETURNING transfers`,
    [account.toLowerCase(), periodSeconds],
  );
  return row.transfers === '1';
}
