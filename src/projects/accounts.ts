import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared';

/**
 * Accounts that proved themselves to a project: by the sponsor's own signature on an intent or legacy bundle the
 * project submitted, by signing a withdrawal request, or registered by the operator (`npm run cli -- accounts add`).
 * A project's session signer acting for a deposit account proves nothing: registering an address is open to any
 * project. The allocator allocates withdrawals for a project only from accounts it knows this way, so one project
 * cannot tie up another's users' funds.
 */
export type Proof = 'intent' | 'withdrawal-signature' | 'operator';

/**
 * Records the proof. In a transaction that also reserves, call it before the reservation: the (project, account) row
 * comes before any balance row in the global lock order (src/ledger/ledger.ts).
 */
export async function proveAccount(tx: EntityManager, projectId: string, account: string, proof: Proof): Promise<void> {
  await preparedQuery(tx, 'INSERT INTO project_accounts (project_id, account, proof) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [projectId, account.toLowerCase(), proof]);
}

/**
 * Locks the (project, account) row until the transaction ends; false when the account has not proved itself to the
 * project. What is decided for the pair under it (the outstanding-withdrawal count) holds until the commit.
 */
export async function lockProvenAccount(tx: EntityManager, projectId: string, account: string): Promise<boolean> {
  const rows: unknown[] = await preparedQuery(tx, 'SELECT 1 FROM project_accounts WHERE project_id = $1 AND account = $2 FOR UPDATE', [projectId, account.toLowerCase()]);
  return rows.length > 0;
}
