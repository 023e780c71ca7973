import type { Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';
import type { SessionCredit } from '../intents/store';

/*
 * A project's deposit credit in an account: what the ledger attributes to the deposits that project processed for
 * it. Registering an address proves nothing about who owns it (docs/trust-model.md, deposit accounts), so the
 * intents a project's session signer signs for an account may reserve, per chain and token, only
 *   its deposits into the account there (all but those refunded by a transfer made outside: such a deposit's
 *   funds left by that transfer, whatever its refund intents did, and a refund intent that moved funds is spent below;
 *   those rejected ACCOUNT-2 while the registration is unproven, which are recorded only; and voided ones, whose
 *   funds never came)
 *   + what its deposits' bridges delivered to the account there (completed, recipient = the account)
 *   - what its earlier session intents for the account spent there (still reserved, claimed, or filled: a filled
 *     intent's funds are the relayer's to pull, whether or not its claim is ever seen; or released because a snapshot
 *     showed them gone from the account, src/ledger/ledger.ts releaseGone).
 * Funds someone else put in the address stay out of its reach, whatever owner the project named.
 */

/**
 * Locks the project's registration of the account (the (project, account) row of the global lock order,
 * src/ledger/ledger.ts) so that two session intents of the project for the account check its credit one at a time.
 */
export async function lockDepositAccount(tx: Tx, projectId: string, account: string): Promise<void> {
  await preparedQuery(tx, 'SELECT 1 FROM deposit_accounts WHERE address = $1 AND project_id = $2 FOR UPDATE', [
    account.toLowerCase(),
    projectId,
  ]);
}

/**
 * The project's credit in the account for each `k.chain_id`, `k.token` of the statement ($1 the project, $2 the
 * account), as the comment above adds it up.
 */
const CREDIT = `(SELECT coalesce(sum(d.amount), 0) FROM deposits d
         WHERE d.project_id = $1 AND d.account = $2 AND d.chain_id = k.chain_id AND d.token = k.token
           AND d.refunded_by IS DISTINCT FROM 'transfer' AND d.stage <> 'voided'
           AND (d.error_code IS DISTINCT FROM 'ACCOUNT-2' OR EXISTS (SELECT 1 FROM deposit_accounts a
             WHERE a.address = $2 AND a.project_id = $1 AND a.proven_at IS NOT NULL)))
     + (SELECT coalesce(sum(d.destination_amount), 0) FROM deposits d
         WHERE d.project_id = $1 AND d.recipient = $2 AND d.target_chain_id = k.chain_id AND d.target_token = k.token
           AND d.stage = 'completed' AND d.intent_id IS NOT NULL)
     - (SELECT coalesce(sum(r.amount), 0) FROM intents i JOIN quotes q ON q.nonce = i.id
         JOIN reservations r ON r.owner_kind = 'intent' AND r.owner_id = i.id::text
         WHERE i.account = $2 AND i.signed_by_session AND q.project_id = $1 AND r.chain_id = k.chain_id AND r.token = k.token
           AND (r.released_at IS NULL OR i.claims ? r.chain_id::text OR i.fill IS NOT NULL OR r.released_gone))`;

/**
 * Whether the session intent `intentId` (recorded with its reservations in this transaction, under
 * lockDepositAccount) takes any chain and token of the account past the project's deposit credit.
 */
export async function overdrawsDepositCredit(
  tx: Tx,
  projectId: string,
  account: string,
  intentId: string,
): Promise<boolean> {
  const rows: unknown[] = await preparedQuery(
    tx,
    `WITH spent AS (
       SELECT DISTINCT chain_id, token FROM reservations WHERE owner_kind = 'intent' AND owner_id = $3::text)
     SELECT 1 FROM spent k WHERE ${CREDIT} < 0`,
    [projectId, account.toLowerCase(), intentId],
  );
  return rows.length > 0;
}

/** The credit a session intent may spend, as the intent core's submit takes it. */
export const sessionCredit: SessionCredit = { lock: lockDepositAccount, overdrawn: overdrawsDepositCredit };

/** What the project's credit in the account leaves a new session intent of `token` on `chainId` (under lockDepositAccount). */
export async function depositCredit(
  tx: Tx,
  projectId: string,
  account: string,
  chainId: number,
  token: string,
): Promise<bigint> {
  const [{ credit }]: { credit: string }[] = await preparedQuery(
    tx,
    `SELECT ${CREDIT} AS credit FROM (VALUES ($3::bigint, $4::text)) AS k (chain_id, token)`,
    [projectId, account.toLowerCase(), chainId, token.toLowerCase()],
  );
  return BigInt(credit);
}
