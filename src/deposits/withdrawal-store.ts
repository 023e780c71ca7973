import type { Db } from '../db/types';
import type { IntentOp } from '../intents/types';
import { forgetUnlessAccepted } from '../intents/quote-store';

/** A withdrawal whose quote was not accepted: its nonce is free for the same signed request again. */
export async function forgetWithdrawalQuote(
  db: Db,
  account: string,
  projectId: string,
  nonce: string,
  intentId: string,
): Promise<void> {
  await forgetUnlessAccepted(db, intentId, (tx) =>
    tx.query(
      'UPDATE deposit_withdrawals SET intent_id = NULL WHERE account = $1 AND project_id = $4 AND nonce = $2 AND intent_id = $3 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $3)',
      [account, nonce, intentId, projectId],
    ),
  );
}

/** The stored quote of a session intent, with the session signer of the project's registration of its account. */
export async function loadSessionQuote(
  db: Db,
  nonce: string,
  projectId: string,
): Promise<{ operation: IntentOp; signer: string | null } | undefined> {
  const [quoted]: { operation: IntentOp; signer: string | null }[] = await db.query(
    `SELECT q.operation, a.session_signer AS signer FROM quotes q LEFT JOIN deposit_accounts a ON a.address = lower(q.account) AND a.project_id = $2 WHERE q.nonce = $1`,
    [nonce, projectId],
  );
  return quoted;
}

/** An owner's withdrawal request, as signed (recorded once per owner nonce). */
export interface WithdrawalRequest {
  chain: string;
  token: string;
  amount: string;
  recipient: string;
}

/** Records the withdrawal of an owner nonce, unless that nonce is recorded already. */
export async function recordWithdrawal(
  db: Db,
  account: string,
  projectId: string,
  nonce: string,
  request: WithdrawalRequest,
): Promise<void> {
  await db.query(
    'INSERT INTO deposit_withdrawals (account, project_id, nonce, request) VALUES ($1, $4, $2, $3) ON CONFLICT DO NOTHING',
    [account, nonce, request, projectId],
  );
}

/** The recorded withdrawal of an owner nonce: its request and the intent that carries it out, once quoted. */
export async function loadWithdrawal(
  db: Db,
  account: string,
  projectId: string,
  nonce: string,
): Promise<{ request: WithdrawalRequest; intentId: string | null }> {
  const [recorded]: { request: WithdrawalRequest; intentId: string | null }[] = await db.query(
    'SELECT request, intent_id AS "intentId" FROM deposit_withdrawals WHERE account = $1 AND nonce = $2 AND project_id = $3',
    [account, nonce, projectId],
  );
  return recorded;
}

/** Records the withdrawal's quote, unless a concurrent request recorded one first; answers the one recorded. */
export async function recordWithdrawalIntent(
  db: Db,
  account: string,
  projectId: string,
  nonce: string,
  intentId: string,
): Promise<string> {
  await db.query(
    'UPDATE deposit_withdrawals SET intent_id = $3 WHERE account = $1 AND nonce = $2 AND project_id = $4 AND intent_id IS NULL',
    [account, nonce, intentId, projectId],
  );
  const [recorded]: { intentId: string }[] = await db.query(
    'SELECT intent_id AS "intentId" FROM deposit_withdrawals WHERE account = $1 AND nonce = $2 AND project_id = $3',
    [account, nonce, projectId],
  );
  return recorded.intentId;
}
