import type { Tx } from '../db/types';
import type { ChainRegistry, TokenInfo } from '../chains/registry';
import {
  availableBalances,
  type ChainClaim,
  expiredHolds,
  type HeldKey,
  walletHolders,
  insertReservation,
  lockBalance,
  type Owner,
  releaseAccountsSettled,
  releaseAfterBlocks,
  releaseAfterTime,
  releaseGoneReservations,
  releaseOwnersNow,
  releaseOwnersSettled,
  WALLET,
} from './store';

/** A balance the account may spend: a resource lock of ours (COMPACT) or a wallet balance (PERMIT2). */
export interface Source {
  chainId: number;
  token: TokenInfo;
  lockTag: string;
  funding: 'COMPACT' | 'PERMIT2';
  available: bigint;
}

export type { ChainClaim, HeldKey };
export { expiredHolds, walletHolders, WALLET };

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

/** Spendable balances of an account: this allocator's locks and the wallet, each minus its active reservations. */
export async function availableSources(
  db: Tx,
  account: string,
  lockTag: string,
  registry: ChainRegistry,
): Promise<Source[]> {
  const rows = await availableBalances(db, account, lockTag);
  return rows.flatMap((r) => {
    const token = registry.token(Number(r.chainId), r.token);
    const available = BigInt(r.available);
    if (!token || available <= 0n) return [];
    return [
      {
        chainId: Number(r.chainId),
        token,
        lockTag: r.lockTag,
        funding: r.lockTag === WALLET ? 'PERMIT2' : 'COMPACT',
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
export async function reserve(tx: Tx, owner: Owner, account: string, items: Reservation[]): Promise<void> {
  const acct = account.toLowerCase();
  const key = (r: Reservation) => `${r.chainId}:${r.token.toLowerCase()}:${r.lockTag}`;
  // Code-unit order, as ingestion orders its upserts, so the two always lock rows in the same order.
  const sorted = [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const item of sorted) {
    const token = item.token.toLowerCase();
    const balance = await lockBalance(tx, acct, { ...item, token });
    if (balance === undefined) throw new InsufficientBalance();
    // A statement of its own, after the lock: its snapshot counts every reservation committed before the lock was ours.
    if (!(await insertReservation(tx, owner, acct, { ...item, token }, balance))) throw new InsufficientBalance();
  }
}

/**
 * `expires` passed: the authorization can no longer be claimed, but a Claim mined in a block before `expires` may not
 * show in the stored snapshot yet. What an owner still holds that no claim spent is therefore not freed here: it is
 * released once the stored snapshot of its balance is of a block whose timestamp is at or after `expires` (such a
 * snapshot counts every claim there can be). A reservation a claim already settles keeps waiting for the claim's
 * block. Safe to repeat.
 */
export async function releaseAfterExpiry(tx: Tx, owner: Owner, expires: number): Promise<void> {
  await releaseAfterTime(tx, owner, expires);
  await releaseOwnersSettled(tx, [owner]);
}

/**
 * Claims spent owners' reservations, each on one chain. They are not released yet: until the indexer reports a balance
 * snapshot at or after the claim's block, the stored balance still counts the claimed funds, and releasing now would
 * let them be allocated twice. Without the claim's block, the next newer snapshot than the stored one is awaited.
 * A claim reported after `expires` (mined before it) settles the same way. At most one claim per owner and chain.
 */
export async function settleOnClaims(tx: Tx, claims: ChainClaim[]): Promise<void> {
  await releaseAfterBlocks(tx, claims);
  await releaseOwnersSettled(
    tx,
    claims.map((c) => c.owner),
  );
}

/**
 * Releases reservations of these accounts (claimed, or past `expires`) whose balance snapshot has caught up, and
 * answers the intents that held any of them (their deposits look again whether the intent is final).
 */
export async function releaseSettled(tx: Tx, accounts: string[]): Promise<string[]> {
  if (!accounts.length) return [];
  return releaseAccountsSettled(tx, accounts);
}

/**
 * Releases reservations whose funds a newer snapshot shows gone from the account (src/deposits/store.ts
 * goneSessionHolds), once their intent failed for it: what is not there cannot be claimed, and the deposit need not
 * wait for `expires` to learn it.
 */
export async function releaseGone(tx: Tx, reservationIds: string[]): Promise<void> {
  await releaseGoneReservations(tx, reservationIds);
}

/**
 * Cancelled intents (of deposits a reorg voided) hold nothing: the funds they reserved never arrived, and what the
 * account holds now is another deposit's. Their claims are refused from now on (src/intents/claim-authorization.ts).
 */
export async function releaseCancelled(tx: Tx, intentIds: string[]): Promise<void> {
  await releaseOwnersNow(
    tx,
    intentIds.map((id) => ({ kind: 'intent', id })),
  );
}
