/**
 * What indexers report of deposits: arrivals, transfers a reorg dropped, refund transfers, unsupported tokens, the
 * session funds a snapshot shows gone, and the deposits told of their intents' moves.
 */
import type { Tx } from '../db/types';
import { queueSignals, type QueuedSignal } from '../outbox/store';
import { depositWorkflowId, intentSettledSignal, refundWorkflowId } from '../../workflows/contracts/deposit';
import { plainList } from '../db/plain-list';
import { preparedQuery } from '../db/prepared';
import { WALLET } from '../ledger/ledger';
import { forgetQuote, lockQuoteRow } from '../intents/quote-store';
import type { DepositEvent, DepositRefundEvent, DepositVoidEvent } from './indexer-events';
import { OWNING_REGISTRATION } from './account-store';
import { DEPOSIT, type DepositRow, TRANSFER, transferOf } from './store';

/**
 * Records a transfer into the account as a deposit of the registration it belongs to (OWNING_REGISTRATION), once per
 * transfer (TRANSFER); undefined when it was recorded before or the account is not registered. The same transfer
 * reported at another place (its transaction mined again in another block after a reorg) moves the record there.
 */
export async function insertDeposit(tx: Tx, e: DepositEvent): Promise<DepositRow | undefined> {
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
export async function lockVoidable(tx: Tx, e: DepositVoidEvent): Promise<DepositRow | undefined> {
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
  tx: Tx,
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
export async function markVoided(tx: Tx, id: string): Promise<void> {
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
export async function recordOwnArrival(tx: Tx, e: DepositEvent, fillNonce: string): Promise<boolean> {
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
export async function lockDepositAwaitingRefund(tx: Tx, e: DepositRefundEvent): Promise<DepositRow | undefined> {
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
export async function countUnsupported(tx: Tx, account: string, periodSeconds: number): Promise<boolean> {
  const [row]: { transfers: string }[] = await tx.query(
    `INSERT INTO unsupported_transfers (account, period_start, transfers)
     VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1)
     ON CONFLICT (account, period_start) DO UPDATE SET transfers = unsupported_transfers.transfers + 1
     RETURNING transfers`,
    [account.toLowerCase(), periodSeconds],
  );
  return row.transfers === '1';
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
export async function goneSessionHolds(tx: Tx, accounts: string[]): Promise<GoneHold[]> {
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
export async function queueIntentReports(tx: Tx, intentIds: string[], status: string): Promise<QueuedSignal[]> {
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
