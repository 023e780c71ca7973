import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared';

/**
 * Accounts that proved themselves to a project: by signing an intent the project submitted, by signing a withdrawal
 * request, or registered by the operator (`npm run cli -- accounts add`). The allocator allocates withdrawals for a
 * project only from accounts it knows this way, so one project cannot tie up another's users' funds.
 */
export type Proof = 'intent' | 'withdrawal-signature' | 'operator';

export async function proveAccount(tx: EntityManager, projectId: string, account: string, proof: Proof): Promise<void> {
  await preparedQuery(tx, 'INSERT INTO project_accounts (project_id, account, proof) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [projectId, account.toLowerCase(), proof]);
}

export async function isProven(tx: EntityManager, projectId: string, account: string): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM project_accounts WHERE project_id = $1 AND account = $2', [projectId, account.toLowerCase()]);
  return rows.length > 0;
}
