import type { Tx } from '../db/types';

/** Strings only (stored as JSON); the HTTP layer writes the 256-bit fields as integer literals. */
export interface Allocation {
  nonce: string;
  expires: string;
  allocatorData: `0x${string}`;
  transfers: { id: string; portions: { claimant: string; amount: string }[] }[];
}

/**
 * Takes an Idempotency-Key for a request (inserted, or taken over once older than `ttlHours`); whether it was taken.
 * A concurrent request with the same key waits on its row until this transaction ends.
 */
export async function takeIdempotencyKey(
  tx: Tx,
  projectId: string,
  k: { key: string; requestHash: string },
  ttlHours: number,
): Promise<boolean> {
  const taken: unknown[] = await tx.query(
    `INSERT INTO withdrawal_idempotency_keys (project_id, key, request_hash) VALUES ($1, $2, $3)
     ON CONFLICT (project_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, nonce = NULL, created_at = now()
       WHERE withdrawal_idempotency_keys.created_at < now() - make_interval(hours => $4)
     RETURNING 1`,
    [projectId, k.key, k.requestHash, ttlHours],
  );
  return taken.length > 0;
}

/** Deletes a few keys older than `ttlHours` (rows another transaction holds are skipped). */
export async function pruneIdempotencyKeys(tx: Tx, ttlHours: number): Promise<void> {
  await tx.query(
    `DELETE FROM withdrawal_idempotency_keys WHERE ctid IN (SELECT ctid FROM withdrawal_idempotency_keys
         WHERE created_at < now() - make_interval(hours => $1) ORDER BY created_at LIMIT 10 FOR UPDATE SKIP LOCKED)`,
    [ttlHours],
  );
}

/** The request a key came with and the allocation it answered. */
export async function findKeyedAllocation(
  tx: Tx,
  projectId: string,
  key: string,
): Promise<{ requestHash: string; response: Allocation }> {
  const [earlier]: { requestHash: string; response: Allocation }[] = await tx.query(
    'SELECT k.request_hash AS "requestHash", w.response FROM withdrawal_idempotency_keys k JOIN withdrawals w ON w.nonce = k.nonce WHERE k.project_id = $1 AND k.key = $2',
    [projectId, key],
  );
  return earlier;
}

/** Ties the key to the allocation it made. */
export async function setKeyNonce(tx: Tx, projectId: string, key: string, nonce: string): Promise<void> {
  await tx.query('UPDATE withdrawal_idempotency_keys SET nonce = $3 WHERE project_id = $1 AND key = $2', [
    projectId,
    key,
    nonce,
  ]);
}

/** The account's withdrawals with the project that are allocated and not expired. */
export async function countOutstandingWithdrawals(tx: Tx, account: string, projectId: string): Promise<number> {
  const [{ n }]: { n: number }[] = await tx.query(
    "SELECT count(*)::int AS n FROM withdrawals WHERE account = $1 AND project_id = $2 AND status = 'ALLOCATED' AND expires_at > now()",
    [account, projectId],
  );
  return n;
}

/** The status of a forced withdrawal of the lock (pending or enabled), if the sponsor started one. */
export async function findForcedWithdrawal(
  tx: Tx,
  account: string,
  chainId: number,
  lockId: string,
): Promise<string | undefined> {
  const forced: { status: string }[] = await tx.query(
    "SELECT status FROM forced_withdrawals WHERE account = $1 AND chain_id = $2 AND lock_id = $3 AND status <> 'disabled'",
    [account, chainId, lockId],
  );
  return forced[0]?.status;
}

export async function insertWithdrawal(
  tx: Tx,
  w: {
    nonce: string;
    projectId: string;
    account: string;
    chainId: number;
    kind: string;
    response: Allocation;
    expires: number;
    digest: string | null;
  },
): Promise<void> {
  await tx.query(
    'INSERT INTO withdrawals (nonce, project_id, account, chain_id, kind, response, expires_at, request_digest) VALUES ($1, $2, $3, $4, $5, $6, to_timestamp($7), $8)',
    [w.nonce, w.projectId, w.account, w.chainId, w.kind, w.response, w.expires, w.digest],
  );
}

/** An allocated withdrawal ends with `status`; its `expires`, or undefined when it had ended already. */
export async function endWithdrawal(tx: Tx, nonce: string, status: string): Promise<string | undefined> {
  const [row]: { expires: string }[] = await tx.query(
    `WITH expired AS (UPDATE withdrawals SET status = $2, updated_at = now() WHERE nonce = $1 AND status = 'ALLOCATED' RETURNING response->>'expires' AS expires)
       SELECT expires FROM expired`,
    [nonce, status],
  );
  return row?.expires;
}

export async function markWithdrawalClaimed(tx: Tx, nonce: string, chainId: number): Promise<void> {
  await tx.query(
    "UPDATE withdrawals SET status = 'CLAIMED', updated_at = now() WHERE nonce = $1 AND chain_id = $2 AND status <> 'CLAIMED'",
    [nonce, chainId],
  );
}
