import type { Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';

/**
 * Accounts that proved themselves to a project: by the sponsor's own signature on an intent or legacy bundle the
 * project submitted, by signing a withdrawal request, or registered by the operator (`npm run cli -- accounts add`).
 * A project's session signer acting for a deposit account proves nothing: registering an address is open to any
 * project. The allocator allocates withdrawals for a project only from accounts it knows this way, so one project
 * cannot tie up another's users' funds.
 */
export type Proof = 'intent' | 'withdrawal-signature' | 'operator';

/** What a signature showed the account using with the project: amounts of a token on a chain. */
export interface Allowance {
  chainId: number;
  token: string;
  amount: string;
}

/**
 * Records the proof (a signature's lasts `days` from now, refreshed by each new one; the operator's has no end) and
 * what the signature covered: withdrawals allocated later without a signature of their own may hold, per chain and
 * token, at most the largest amount the account signed for with this project (src/withdrawals/allocate.ts). In a
 * transaction that also reserves, call it before the reservation: the (project, account) row comes before any
 * balance row in the global lock order (src/ledger/ledger.ts).
 */
export async function proveAccount(
  tx: Tx,
  projectId: string,
  account: string,
  proof: Proof,
  covered: Allowance[] = [],
  days?: number,
): Promise<void> {
  const acct = account.toLowerCase();
  // One statement for both: the allowances' insert waits on the EXISTS, whose sub-plan runs the proof first, so the
  // (project, account) row is still taken before any allowance row (src/ledger/ledger.ts's lock order).
  await preparedQuery(
    tx,
    `WITH proof AS (
       INSERT INTO project_accounts (project_id, account, proof, proven_until) VALUES ($1, $2, $3, now() + make_interval(days => $4::int))
       ON CONFLICT (project_id, account) DO UPDATE SET proof = CASE WHEN project_accounts.proven_until IS NULL THEN project_accounts.proof ELSE EXCLUDED.proof END,
         proven_until = CASE WHEN project_accounts.proven_until IS NULL OR EXCLUDED.proven_until IS NULL THEN NULL
           ELSE greatest(project_accounts.proven_until, EXCLUDED.proven_until) END
       RETURNING 1)
     INSERT INTO project_account_allowances (project_id, account, chain_id, token, amount)
     SELECT $1, $2, * FROM unnest($5::bigint[], $6::text[], $7::numeric[]) WHERE EXISTS (SELECT 1 FROM proof)
     ON CONFLICT (project_id, account, chain_id, token) DO UPDATE SET amount = greatest(project_account_allowances.amount, EXCLUDED.amount)`,
    [
      projectId,
      acct,
      proof,
      proof === 'operator' ? null : (days ?? 30),
      covered.map((c) => c.chainId),
      covered.map((c) => c.token.toLowerCase()),
      covered.map((c) => c.amount),
    ],
  );
}

/**
 * Locks the (project, account) row until the transaction ends and answers its proof: absent when the account never
 * proved itself to the project, `expired` when its signature's time is over. What is decided for the pair under it
 * (the outstanding-withdrawal count, the allowance) holds until the commit.
 */
export async function lockProvenAccount(
  tx: Tx,
  projectId: string,
  account: string,
): Promise<{ operator: boolean; expired: boolean } | undefined> {
  const [row]: { operator: boolean; expired: boolean }[] = await preparedQuery(
    tx,
    'SELECT proven_until IS NULL AS operator, proven_until < now() AS expired FROM project_accounts WHERE project_id = $1 AND account = $2 FOR UPDATE',
    [projectId, account.toLowerCase()],
  );
  return row && { operator: row.operator, expired: !!row.expired };
}

/**
 * The chains and tokens of `wanted` where withdrawals allocated without the account's signature would hold more than
 * the allowance: those outstanding (allocated without a signature, still reserved) plus `wanted`.
 */
export async function beyondAllowance(
  tx: Tx,
  projectId: string,
  account: string,
  wanted: Allowance[],
): Promise<Allowance[]> {
  const rows: { chainId: string; token: string }[] = await tx.query(
    `SELECT w.chain_id AS "chainId", w.token FROM unnest($3::bigint[], $4::text[], $5::numeric[]) AS w(chain_id, token, amount)
     WHERE w.amount + (SELECT coalesce(sum(r.amount), 0) FROM reservations r JOIN withdrawals x ON r.owner_kind = 'withdrawal' AND r.owner_id = x.nonce::text
         WHERE x.project_id = $1 AND x.account = $2 AND x.request_digest IS NULL AND r.released_at IS NULL AND r.chain_id = w.chain_id AND r.token = w.token)
       > coalesce((SELECT a.amount FROM project_account_allowances a WHERE a.project_id = $1 AND a.account = $2 AND a.chain_id = w.chain_id AND a.token = w.token), 0)`,
    [
      projectId,
      account.toLowerCase(),
      wanted.map((w) => w.chainId),
      wanted.map((w) => w.token.toLowerCase()),
      wanted.map((w) => w.amount),
    ],
  );
  return rows.map((r) => wanted.find((w) => w.chainId === Number(r.chainId) && w.token.toLowerCase() === r.token)!);
}
