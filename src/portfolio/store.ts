import type { Db } from '../db/types';
import type { BalanceRow } from './portfolio';

/**
 * An account's balances per chain and token: wallet (unlocked) and lock (locked) amounts summed, each key's newest
 * snapshot shown, confirmed or not (the ledger uses the confirmed ones alone).
 */
export async function accountBalances(db: Db, account: string): Promise<BalanceRow[]> {
  const rows: { chainId: string; token: string; unlocked: string; locked: string }[] = await db.query(
    `SELECT chain_id AS "chainId", token, sum(CASE WHEN lock_tag = '' THEN amount ELSE 0 END) AS unlocked,
       sum(CASE WHEN lock_tag <> '' THEN amount ELSE 0 END) AS locked
     FROM (SELECT DISTINCT ON (chain_id, token, lock_tag) chain_id, token, lock_tag, amount FROM (
         SELECT chain_id, token, '' AS lock_tag, amount, block_number FROM wallet_balances WHERE account = $1
         UNION ALL
         SELECT chain_id, token, lock_tag, amount, block_number FROM lock_balances WHERE account = $1
         UNION ALL
         SELECT chain_id, token, lock_tag, amount, block_number FROM unconfirmed_balances WHERE account = $1
       ) s ORDER BY chain_id, token, lock_tag, block_number DESC) b
     GROUP BY chain_id, token`,
    [account.toLowerCase()],
  );
  return rows.map((r) => ({
    chainId: Number(r.chainId),
    token: r.token,
    unlocked: BigInt(r.unlocked),
    locked: BigInt(r.locked),
  }));
}
