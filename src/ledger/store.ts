import type { Db, Tx } from '../db/types';
import { plainList } from '../db/plain-list';
import { preparedQuery } from '../db/prepared';

/** Wallet (unlocked) funds are reserved under this pseudo lock tag; resource locks under their own tag. */
export const WALLET = 'wallet';

/** Who holds a reservation: an intent, bundle or withdrawal, by its id. */
export interface Owner {
  kind: string;
  id: string;
}

/** A lock whose sponsor started a forced withdrawal (pending or enabled) is allocated to nothing, as withdrawals check. */
const NOT_FORCED = `NOT EXISTS (SELECT 1 FROM forced_withdrawals f WHERE f.account = lb.account AND f.chain_id = lb.chain_id
  AND f.lock_tag = lb.lock_tag AND f.token = lb.token AND f.status <> 'disabled')`;

/** A balance of an account (this allocator's lock or the wallet) minus its active reservations. */
export interface AvailableBalance {
  chainId: string;
  token: string;
  lockTag: string;
  available: string;
}

export async function availableBalances(db: Tx, account: string, lockTag: string): Promise<AvailableBalance[]> {
  return preparedQuery(
    db,
    `WITH balances AS (
       SELECT chain_id, token, lock_tag, amount FROM lock_balances lb WHERE account = $1 AND lock_tag = $2 AND ${NOT_FORCED}
       UNION ALL
       SELECT chain_id, token, '${WALLET}', amount FROM wallet_balances WHERE account = $1)
     SELECT b.chain_id AS "chainId", b.token, b.lock_tag AS "lockTag", b.amount - coalesce(sum(r.amount), 0) AS available
     FROM balances b LEFT JOIN reservations r ON r.account = $1 AND r.chain_id = b.chain_id AND r.token = b.token
       AND r.lock_tag = b.lock_tag AND r.released_at IS NULL
     GROUP BY b.chain_id, b.token, b.lock_tag, b.amount`,
    [account.toLowerCase(), lockTag],
  );
}

/** Locks the balance row a reservation draws on (the wallet's, or a lock not being force-withdrawn); its amount and block. */
export async function lockBalance(
  tx: Tx,
  account: string,
  item: { chainId: number; token: string; lockTag: string },
): Promise<LockedBalance | undefined> {
  const balance: LockedBalance[] =
    item.lockTag === WALLET
      ? await preparedQuery(
          tx,
          'SELECT amount, block_number AS block FROM wallet_balances WHERE account = $1 AND chain_id = $2 AND token = $3 FOR UPDATE',
          [account, item.chainId, item.token],
        )
      : await preparedQuery(
          tx,
          `SELECT amount, block_number AS block FROM lock_balances lb WHERE account = $1 AND chain_id = $2 AND token = $3 AND lock_tag = $4 AND ${NOT_FORCED} FOR UPDATE`,
          [account, item.chainId, item.token, item.lockTag],
        );
  return balance[0];
}

/** A balance row as a reservation is checked against it. */
export interface LockedBalance {
  amount: string;
  block: string;
}

/** Inserts the reservation if `balance` covers it beside the active ones, noting the block it was checked at; whether it did. */
export async function insertReservation(
  tx: Tx,
  owner: Owner,
  account: string,
  item: { chainId: number; token: string; lockTag: string; amount: string },
  balance: LockedBalance,
): Promise<boolean> {
  const inserted: unknown[] = await preparedQuery(
    tx,
    `INSERT INTO reservations (owner_kind, owner_id, account, chain_id, token, lock_tag, amount, basis_block)
       SELECT $1::text, $2::text, $3::text, $4::bigint, $5::text, $6::text, $7::numeric, $9::bigint
       WHERE $8::numeric - (SELECT coalesce(sum(amount), 0) FROM reservations
         WHERE account = $3 AND chain_id = $4 AND token = $5 AND lock_tag = $6 AND released_at IS NULL) >= $7::numeric
       RETURNING 1`,
    [owner.kind, owner.id, account, item.chainId, item.token, item.lockTag, item.amount, balance.amount, balance.block],
  );
  return inserted.length > 0;
}

/** A column of the stored snapshot a reservation is checked against (wallet or lock balance of the same key). */
const snapshot = (column: 'block_number' | 'block_timestamp') => `CASE WHEN r.lock_tag = '${WALLET}'
  THEN (SELECT w.${column} FROM wallet_balances w WHERE w.account = r.account AND w.chain_id = r.chain_id AND w.token = r.token)
  ELSE (SELECT l.${column} FROM lock_balances l WHERE l.account = r.account AND l.chain_id = r.chain_id AND l.token = r.token AND l.lock_tag = r.lock_tag) END`;
const SNAPSHOT_BLOCK = snapshot('block_number');
/**
 * The first block timestamp at which no claim of a hold can be mined any more: The Compact refuses a claim from
 * `expires` on, Permit2 (wallet funds) only after its deadline (`expires`) has passed.
 */
const CLAIMS_END = `r.release_after_time + CASE WHEN r.lock_tag = '${WALLET}' THEN 1 ELSE 0 END`;
/**
 * Released once the snapshot shows the claim (its block), or shows every claim there can be (a block timestamp at
 * or after CLAIMS_END). A snapshot without a timestamp never counts for the second: its stored timestamp is that of
 * an earlier snapshot of the key, or none.
 */
const SETTLED = `r.released_at IS NULL AND (
  (r.release_after_block IS NOT NULL AND r.release_after_block <= ${SNAPSHOT_BLOCK})
  OR (r.release_after_time IS NOT NULL AND ${CLAIMS_END} <= ${snapshot('block_timestamp')}))`;

/** The owner's reservations no claim settles wait for a snapshot timestamp at or after `expires`. */
export async function releaseAfterTime(tx: Tx, owner: Owner, expires: number): Promise<void> {
  await tx.query(
    `UPDATE reservations SET release_after_time = $3
     WHERE owner_kind = $1 AND owner_id = $2 AND released_at IS NULL AND release_after_block IS NULL AND release_after_time IS NULL`,
    [owner.kind, owner.id, expires],
  );
}

/** A balance a hold is on: a lock (its tag) or the wallet (WALLET) of an account, for one token. */
export interface HeldKey {
  account: string;
  token: string;
  lockTag: string;
}

/**
 * The balances of `chainId` with reservations past their `expires` at `timestamp` (a block's) that no claim settles and
 * are not released yet: a snapshot of each at that block releases them, with or without activity on the account.
 */
export async function expiredHolds(db: Tx, chainId: number, timestamp: number): Promise<HeldKey[]> {
  return preparedQuery(
    db,
    `SELECT DISTINCT account, token, lock_tag AS "lockTag" FROM reservations r
     WHERE chain_id = $1 AND released_at IS NULL AND release_after_block IS NULL AND ${CLAIMS_END} <= $2
     ORDER BY account, token, "lockTag"`,
    [chainId, timestamp],
  );
}

/**
 * The owners (intents and legacy bundles, whose id is their Permit2 nonce) holding wallet funds of `chainId` that no
 * claim was seen to settle: each may be claimed through Permit2, which emits nothing of its own, so the indexer looks
 * for their nonces being spent. With the account that signed each (the Permit2 owner) and the tokens held.
 */
export async function walletHolders(
  db: Tx,
  chainId: number,
): Promise<{ nonce: string; account: string; token: string }[]> {
  return preparedQuery(
    db,
    `SELECT DISTINCT owner_id AS nonce, account, token FROM reservations
     WHERE chain_id = $1 AND lock_tag = '${WALLET}' AND owner_kind IN ('intent', 'bundle')
       AND released_at IS NULL AND release_after_block IS NULL
     ORDER BY account, nonce`,
    [chainId],
  );
}

/** A Claim of an owner's reservations on one chain, with its block when the indexer reported it. */
export interface ChainClaim {
  owner: Owner;
  chainId: number;
  claimBlock?: string;
}

/**
 * Each claimed owner's reservations on its chain wait for a snapshot of the claim's block (else the next newer
 * snapshot). At most one claim per owner and chain.
 */
export async function releaseAfterBlocks(tx: Tx, claims: ChainClaim[]): Promise<void> {
  if (!claims.length) return;
  await preparedQuery(
    tx,
    `UPDATE reservations r SET release_after_block = coalesce(c.block, coalesce(${SNAPSHOT_BLOCK}, 0) + 1)
     FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS c(kind, id, chain, block)
     WHERE r.owner_kind = c.kind AND r.owner_id = c.id AND r.chain_id = c.chain
       AND r.released_at IS NULL AND r.release_after_block IS NULL`,
    [
      claims.map((c) => c.owner.kind),
      claims.map((c) => c.owner.id),
      claims.map((c) => c.chainId),
      claims.map((c) => c.claimBlock ?? null),
    ],
  );
}

/** Releases every reservation of these owners at once (funds that never arrived: a voided deposit's). */
export async function releaseOwnersNow(tx: Tx, owners: Owner[]): Promise<void> {
  if (!owners.length) return;
  await preparedQuery(
    tx,
    `UPDATE reservations r SET released_at = now()
     FROM unnest($1::text[], $2::text[]) AS o(kind, id)
     WHERE r.owner_kind = o.kind AND r.owner_id = o.id AND r.released_at IS NULL`,
    [owners.map((o) => o.kind), owners.map((o) => o.id)],
  );
}

/** Releases the owners' reservations whose snapshot has caught up. */
export async function releaseOwnersSettled(tx: Tx, owners: Owner[]): Promise<void> {
  if (!owners.length) return;
  await preparedQuery(
    tx,
    `UPDATE reservations r SET released_at = now()
     FROM unnest($1::text[], $2::text[]) AS o(kind, id)
     WHERE r.owner_kind = o.kind AND r.owner_id = o.id AND ${SETTLED}`,
    [owners.map((o) => o.kind), owners.map((o) => o.id)],
  );
}

/**
 * Releases the reservations of these accounts whose snapshot has caught up; answers the intents that held any. The
 * accounts (an indexer batch's, a thousand) travel as a list (plainList) and the statement is prepared: read as an
 * array literal and planned against its every element, they cost PostgreSQL more than the release itself.
 */
export async function releaseAccountsSettled(tx: Tx, accounts: string[]): Promise<string[]> {
  const released: { ownerId: string }[] = await preparedQuery(
    tx,
    `WITH u AS (UPDATE reservations r SET released_at = now() WHERE r.account = ANY(string_to_array($1, ',')) AND ${SETTLED}
       RETURNING r.owner_kind, r.owner_id)
     SELECT DISTINCT owner_id AS "ownerId" FROM u WHERE owner_kind = 'intent'`,
    [plainList(accounts)],
  );
  return released.map((r) => r.ownerId);
}

/**
 * For a statement's FROM list after the relation that yields `account`: keeps the accounts with a reservation not
 * released yet, each found by one probe of `reservations_active`. Only those can have reservations a new snapshot
 * releases or shows gone, so a batch of snapshots learns in its upsert's round trip which accounts to look at again.
 */
export const withUnreleasedReservation = (account: string) =>
  `CROSS JOIN LATERAL (SELECT 1 FROM reservations r WHERE r.account = ${account} AND r.released_at IS NULL LIMIT 1) held`;

/** Releases these reservations (by id) as gone: their funds left the account, so no claim can pull them any more. */
export async function releaseGoneReservations(tx: Tx, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await tx.query(
    'UPDATE reservations SET released_at = now(), released_gone = true WHERE id = ANY($1::bigint[]) AND released_at IS NULL',
    [ids],
  );
}

/** The next value of the allocator nonce sequence. */
export async function nextNonceValue(tx: Tx): Promise<string> {
  const [{ seq }]: { seq: string }[] = await tx.query("SELECT nextval('allocator_nonce_seq') AS seq");
  return seq;
}

/**
 * Records intent nonces ($1, numeric[]) of a sponsor ($2) as handed out: a statement for the quote's own insert to run
 * as its CTE, so quotes and their nonces commit in one round trip.
 */
export const recordIntentNonces =
  "INSERT INTO allocator_nonces (nonce, sponsor, purpose) SELECT n, $2::text, 'intent' FROM unnest($1::numeric[]) n";

/** Records a withdrawal's allocator nonce before anything is signed with it. */
export async function recordWithdrawalNonce(tx: Tx, nonce: bigint, sponsor: string): Promise<void> {
  await tx.query("INSERT INTO allocator_nonces (nonce, sponsor, purpose) VALUES ($1, $2, 'withdrawal')", [
    nonce.toString(),
    sponsor.toLowerCase(),
  ]);
}

/** `count` values of the allocator nonce sequence. */
export async function nextNonceValues(db: Db, count: number): Promise<bigint[]> {
  const rows: { v: string }[] = await db.query(
    "SELECT nextval('allocator_nonce_seq') AS v FROM generate_series(1, $1)",
    [count],
  );
  return rows.map((r) => BigInt(r.v));
}
