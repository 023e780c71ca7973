import type { DataSource } from 'typeorm';
import type { BalanceRow } from './portfolio';

/** An account's balances per chain and token: wallet (unlocked) and lock (locked) amounts summed. */
export async function accountBalances(db: DataSource, account: string): Promise<BalanceRow[]> {
  const rows: { chainId: string; token: string; unlocked: string; locked: string }[] = await db.query(
    `SELECT chain_id AS "chainId", token, sum(unlocked) AS unlocked, sum(locked) AS locked FROM (
       SELECT chain_id, token, amount AS unlocked, 0 AS locked FROM wallet_balances WHERE account = $1
       UNION ALL
       SELECT chain_id, token, 0, amount FROM lock_balances WHERE account = $1
     ) b GROUP BY chain_id, token`,
    [account.toLowerCase()],
  );
  return rows.map((r) => ({
    chainId: Number(r.chainId),
    token: r.token,
    unlocked: BigInt(r.unlocked),
    locked: BigInt(r.locked),
  }));
}
