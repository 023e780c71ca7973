import type { EntityManager } from 'typeorm';
import type { ChainRegistry } from '../chains/registry';
import type { Source } from '../intents/route-finder';

/** Wallet (unlocked) funds are reserved under this pseudo lock tag; resource locks under their own tag. */
export const WALLET = 'wallet';

export interface Reservation { chainId: number; token: string; lockTag: string; amount: string }

export class InsufficientBalance extends Error {
  constructor() {
    super('Insufficient balance');
  }
}

/** Spendable balances of an account: this allocator's locks and the wallet, each minus its active reservations. */
export async function availableSources(db: EntityManager, account: string, lockTag: string, registry: ChainRegistry): Promise<Source[]> {
  const rows: { chain_id: string; token: string; lock_tag: string; available: string }[] = await db.query(
    `WITH balances AS (
       SELECT chain_id, token, lock_tag, amount FROM lock_balances WHERE account = $1 AND lock_tag = $2
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
    return [{ chainId: Number(r.chain_id), token, lockTag: r.lock_tag, funding: r.lock_tag === WALLET ? 'PERMIT2' : 'COMPACT', available } as Source];
  });
}

/**
 * Reserves amounts for one owner atomically, in the caller's transaction. Each balance row is locked (in a fixed
 * order, so concurrent reservers cannot deadlock) before its reservations are summed, so two owners can never
 * together reserve more than the balance.
 */
export async function reserve(tx: EntityManager, owner: { kind: string; id: string }, account: string, items: Reservation[]): Promise<void> {
  const acct = account.toLowerCase();
  const sorted = [...items].sort((a, b) => `${a.chainId}:${a.token}:${a.lockTag}`.localeCompare(`${b.chainId}:${b.token}:${b.lockTag}`));
  for (const item of sorted) {
    const token = item.token.toLowerCase();
    const balance: { amount: string }[] = item.lockTag === WALLET
      ? await tx.query('SELECT amount FROM wallet_balances WHERE account = $1 AND chain_id = $2 AND token = $3 FOR UPDATE', [acct, item.chainId, token])
      : await tx.query('SELECT amount FROM lock_balances WHERE account = $1 AND chain_id = $2 AND token = $3 AND lock_tag = $4 FOR UPDATE', [acct, item.chainId, token, item.lockTag]);
    const [{ reserved }]: { reserved: string }[] = await tx.query(
      'SELECT coalesce(sum(amount), 0) AS reserved FROM reservations WHERE account = $1 AND chain_id = $2 AND token = $3 AND lock_tag = $4 AND released_at IS NULL',
      [acct, item.chainId, token, item.lockTag],
    );
    if (!balance.length || BigInt(balance[0].amount) - BigInt(reserved) < BigInt(item.amount)) throw new InsufficientBalance();
    await tx.query(
      'INSERT INTO reservations (owner_kind, owner_id, account, chain_id, token, lock_tag, amount) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [owner.kind, owner.id, acct, item.chainId, token, item.lockTag, item.amount],
    );
  }
}

/** Releases an owner's active reservations; releasing twice changes nothing. */
export async function release(tx: EntityManager, owner: { kind: string; id: string }): Promise<void> {
  await tx.query('UPDATE reservations SET released_at = now() WHERE owner_kind = $1 AND owner_id = $2 AND released_at IS NULL', [owner.kind, owner.id]);
}
