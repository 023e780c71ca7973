import type { Db } from '../db/types';

/**
 * The deposit accounts whose ERC-20 transfers the indexer reports, read afresh for every range so that a new
 * registration is followed without a restart, and for each the refund recipients its deposits may be returned to.
 */
export async function watchedAccounts(
  db: Db,
): Promise<{ accounts: string[]; refundRecipients: Map<string, Set<string>> }> {
  const accounts: { address: string }[] = await db.query(
    'SELECT DISTINCT address FROM deposit_accounts WHERE released_at IS NULL ORDER BY address',
  );
  const refunds: { account: string; recipient: string }[] = await db.query(
    "SELECT DISTINCT account, refund_recipient AS recipient FROM deposits WHERE stage = 'refunding'",
  );
  const refundRecipients = new Map<string, Set<string>>();
  for (const r of refunds)
    refundRecipients.set(r.account, (refundRecipients.get(r.account) ?? new Set()).add(r.recipient));
  return { accounts: accounts.map((a) => a.address), refundRecipients };
}
