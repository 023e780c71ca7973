import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../db/prepared';
import type { ChainRegistry } from '../chains/registry';
import type { Source } from '../intents/route-finder';

/** Wallet (unlocked) funds are reserved under this pseudo lock tag; resource locks under their own tag. */
export const WALLET = 'wallet';

export interface Reservation {
  chainId: number;
  token: string;
  lockTag: string;
  amount: string;
}

export class InsufficientBalance extends Error {
  constructor() {
    super('Insufficient balance');
  }
}

/** A lock whose sponsor started a forced withdrawal (pending or enabled) is allocated to nothing, as withdrawals check. */
const NOT_FORCED = `NOT EXISTS (SELECT 1 FROM forced_withdrawals f WHERE f.account = lb.account AND f.chain_id = lb.chain_id
  AND f.lock_tag = lb.lock_tag AND f.token = lb.token AND f.status <> 'disabled')`;

/** Spendable balances of an account: this allocator's locks and the wallet, each minus its active reservations. */
export async function availableSources(
  db: EntityManager,
  account: string,
  lockTag: string,
  registry: ChainRegistry,
): Promise<Source[]> {
  const rows: { chain_id: string; token: string; lock_tag: string; available: string }[] = await preparedQuery(
    db,
    `WITH balances AS (
       SELECT chain_id, token, lock_tag, amount FROM lock_balances lb WHERE account = $1 AND lock_tag = $2 AND ${NOT_FORCED}
       UNION ALL
       SELECT chain_id, token, '${WALLET}', amount FROM wallet_balances WHERE account = $1)
     SELECT b.chain_id, b.token, b.lock_tag, b.amount - coalesce(sum(r.amount), 0) AS available
     FROM balances b LEFT JOIN reservations r ON r.account = $1 AND r.chain_id = b.chain_id AND r.token = b.token
       AND r.lock_tag = b.lock_tag AND r.released_at IS NULL
     GROUP BY b.chain_id, b.token, b.lock_tag, b.amount`,
    [account.toLowerCase(), lockTag],
  );
  return rows.flatMap((r) => {
    const token = registry.token(Number(r.chain_id), r.token);
    const available = BigInt(r.available);
    if (!token || available <= 0n) return [];
    return [
      {
        chainId: Number(r.chain_id),
        token,
        lockTag: r.lock_tag,
        funding: r.lock_tag === WALLET ? 'PERMIT2' : 'COMPACT',
        available,
      } as Source,
    ];
  });
}

/**
 * The global lock order. Every transaction that reserves takes its row locks in this order, and never one of an
 * earlier kind after one of a later kind, so intents, legacy bundles, withdrawals and deposit intents running
 * concurrently (in any number of API processes) cannot deadlock:
 *   1. the withdrawal Idempotency-Key row (POST /withdrawals);
 *   2. quote rows, in nonce order (lockQuote; a request's bundles all before anything else);
 *   3. the (project, account) row: project_accounts, inserted by a sponsor's proof or locked by the allocator; for a
 *      session signer's intent, the project's deposit_accounts row (in address order when several accounts);
 *   4. balance rows (wallet_balances, lock_balances), in `key` order below, as ingestion upserts them;
 *   5. rows only this transaction creates or that nobody holds while waiting (reservations, the intent, bundle or
 *      withdrawal record, nonces, outbox rows).
 * A proof therefore comes before the reservation, never after it: a first-time proof by an intent racing one by a
 * signed withdrawal would otherwise each hold what the other waits for.
 */

/**
 * Reserves amounts for one owner atomically, in the caller's transaction. Each balance row is locked (in a fixed
 * order, so concurrent reservers cannot deadlock) before its reservations are summed, so two owners can never
 * together reserve more than the balance.
 */
export async function reserve(
  tx: EntityManager,
  owner: { kind: string; id: string },
  account: string,
  items: Reservation[],
): Promise<void> {
  const acct = account.toLowerCase();
  const key = (r: Reservation) => `${r.chainId}:${r.token.toLowerCase()}:${r.lockTag}`;
  // Code-unit order, as ingestion orders its upserts, so the two always lock rows in the same order.
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const item of sorted) {
    const token = item.token.toLowerCase();
    const balance: { amount: string }[] =
      item.lockTag === WALLET
        ? await preparedQuery(
            tx,
            'SELECT amount FROM wallet_balances WHERE account = $1 AND chain_id = $2 AND token = $3 FOR UPDATE',
            [acct, item.chainId, token],
          )
        : await preparedQuery(
            tx,
            `SELECT amount FROM lock_balances lb WHERE account = $1 AND chain_id = $2 AND token = $3 AND lock_tag = $4 AND ${NOT_FORCED} FOR UPDATE`,
            [acct, item.chainId, token, item.lockTag],
          );
    if (!balance.length) throw new InsufficientBalance();
    // A statement of its own, after the lock: its snapshot counts every reservation committed before the lock was ours.
    const inserted: unknown[] = await preparedQuery(
      tx,
      `INSERT INTO reservations (owner_kind, owner_id, account, chain_id, token, lock_tag, amount)
       SELECT $1::text, $2::text, $3::text, $4::bigint, $5::text, $6::text, $7::numeric
       WHERE $8::numeric - (SELECT coalesce(sum(amount), 0) FROM reservations
         WHERE account = $3 AND chain_id = $4 AND token = $5 AND lock_tag = $6 AND released_at IS NULL) >= $7::numeric
       RETURNING 1`,
      [owner.kind, owner.id, acct, item.chainId, token, item.lockTag, item.amount, balance[0].amount],
    );
    if (!inserted.length) throw new InsufficientBalance();
  }
}

/**
 * `expires` passed: the authorization can no longer be claimed, but a Claim mined in a block before `expires` may not
 * show in the stored snapshot yet. What an owner still holds that no claim spent is therefore not freed here: it is
 * released once the stored snapshot of its balance is of a block whose timestamp is at or after `expires` (such a
 * snapshot counts every claim there can be). A reservation a claim already settles keeps waiting for the claim's
 * block. Safe to repeat.
 */
export async function releaseAfterExpiry(
  tx: EntityManager,
  owner: { kind: string; id: string },
  expires: number,
): Promise<void> {
  await tx.query(
    `UPDATE reservations SET release_after_time = $3
     WHERE owner_kind = $1 AND owner_id = $2 AND released_at IS NULL AND release_after_block IS NULL AND release_after_time IS NULL`,
    [owner.kind, owner.id, expires],
  );
  await tx.query(
    `UPDATE reservations r SET released_at = now() WHERE owner_kind = $1 AND owner_id = $2 AND ${SETTLED}`,
    [owner.kind, owner.id],
  );
}

/** A column of the stored snapshot a reservation is checked against (wallet or lock balance of the same key). */
const snapshot = (column: 'block_number' | 'block_timestamp') => `CASE WHEN r.lock_tag = '${WALLET}'
  THEN (SELECT w.${column} FROM wallet_balances w WHERE w.account = r.account AND w.chain_id = r.chain_id AND w.token = r.token)
  ELSE (SELECT l.${column} FROM lock_balances l WHERE l.account = r.account AND l.chain_id = r.chain_id AND l.token = r.token AND l.lock_tag = r.lock_tag) END`;
const SNAPSHOT_BLOCK = snapshot('block_number');
/**
 * Released once the snapshot shows the claim (its block), or shows every claim there can be (a block timestamp at
 * or after `expires`). A snapshot without a timestamp never counts for the second: its stored timestamp is that of
 * an earlier snapshot of the key, or none.
 */
const SETTLED = `r.released_at IS NULL AND (
  (r.release_after_block IS NOT NULL AND r.release_after_block <= ${SNAPSHOT_BLOCK})
  OR (r.release_after_time IS NOT NULL AND r.release_after_time <= ${snapshot('block_timestamp')}))`;

/**
 * A claim spent an owner's reservations on one chain. They are not released yet: until the indexer reports a balance
 * snapshot at or after the claim's block, the stored balance still counts the claimed funds, and releasing now would
 * let them be allocated twice. Without the claim's block, the next newer snapshot than the stored one is awaited.
 * A claim reported after `expires` (mined before it) settles the same way.
 */
export async function settleOnClaim(
  tx: EntityManager,
  owner: { kind: string; id: string },
  chainId: number,
  claimBlock?: string,
): Promise<void> {
  await tx.query(
    `UPDATE reservations r SET release_after_block = coalesce($4::bigint, coalesce(${SNAPSHOT_BLOCK}, 0) + 1)
     WHERE owner_kind = $1 AND owner_id = $2 AND chain_id = $3 AND released_at IS NULL AND release_after_block IS NULL`,
    [owner.kind, owner.id, chainId, claimBlock ?? null],
  );
  await tx.query(
    `UPDATE reservations r SET released_at = now() WHERE owner_kind = $1 AND owner_id = $2 AND ${SETTLED}`,
    [owner.kind, owner.id],
  );
}

/**
 * Releases reservations of these accounts (claimed, or past `expires`) whose balance snapshot has caught up, and
 * answers the intents that held any of them (their deposits look again whether the intent is final).
 */
export async function releaseSettled(tx: EntityManager, accounts: string[]): Promise<string[]> {
  if (!accounts.length) return [];
  const released: { owner_id: string }[] = await tx.query(
    `WITH u AS (UPDATE reservations r SET released_at = now() WHERE r.account = ANY($1) AND ${SETTLED} RETURNING r.owner_kind, r.owner_id)
     SELECT DISTINCT owner_id FROM u WHERE owner_kind = 'intent'`,
    [accounts],
  );
  return released.map((r) => r.owner_id);
}
