import { setImmediate } from 'node:timers/promises';
import type { Tx } from '../db/types';
import { splitLockId } from '../chains/lock-tag';
import { DEPOSIT_EVENT_TYPES, type DepositIndexerEvent } from '../deposits/indexer-events';
import {
  type BalanceEvent,
  type Refusal,
  type Delivery,
  type ForcedWithdrawalEvent,
  type GasEvent,
  type IndexerEvent,
  type IngestResult,
  type LifecycleEvent,
  type LiquidityEvent,
  type PriceEvent,
} from './types';
import {
  type Balance,
  deleteEvents,
  insertEvents,
  upsertBalances,
  upsertUnconfirmed,
  upsertForcedWithdrawal,
  upsertGasPrice,
  upsertLiquidity,
  upsertPrice,
} from './event-store';

/**
 * Records events by id and applies the new ones, in the caller's transaction. Re-sent ids change nothing, so the
 * activity that calls this may run twice. A snapshot older than the stored block is ignored (out-of-order delivery).
 * `screen` judges the events against what is stored (src/ingestion/screen.ts): the new ones it refuses are neither
 * applied nor recorded, so the same id sent again is judged again. `snapshotAccounts`: the accounts with new
 * confirmed snapshots that hold reservations not released yet, whose settled reservations the caller releases (last,
 * after the batch's claims are recorded: src/ingestion/ingest.ts); a batch of accounts that hold none skips both
 * statements that look at them. No reservation is made in a batch's transaction, so none is missed.
 */
export async function applyEvents(
  tx: Tx,
  events: IndexerEvent[],
  defaultLockTag: string,
  screen?: (events: IndexerEvent[]) => Promise<Refusal[]>,
): Promise<IngestResult & { deliveries: Delivery[]; deposits: DepositIndexerEvent[]; snapshotAccounts: string[] }> {
  const seen = new Set<string>();
  const index = new Map<string, number>();
  const distinct = events.filter((e, i) => !seen.has(e.id) && seen.add(e.id) && index.set(e.id, i)); // first occurrence of an id wins
  const isBalance = (e: IndexerEvent): e is BalanceEvent => e.type === 'balance' && !e.unconfirmed;
  const isShallow = (e: IndexerEvent): e is BalanceEvent => e.type === 'balance' && !!e.unconfirmed;
  // While PostgreSQL records the batch, it is screened (the screen's reads queue behind the insert) and its balance
  // rows planned as if every event in it were new, as in a chain indexer's batch: only the new events' refusals count,
  // and a batch with events recorded before or refused is planned again. `sent`: the driver writes the insert to
  // PostgreSQL a few promise turns after the call, before anything waiting for the next turn of the event loop.
  const sent = setImmediate();
  const [inserted, screened, planned] = await Promise.all([
    insertEvents(tx, distinct),
    sent.then(() => screen?.(distinct) ?? []),
    sent.then(() => balanceRows(distinct.filter(isBalance), defaultLockTag)),
  ]);
  const fresh = new Set(inserted);
  const refused = screened.filter((r) => fresh.has(r.id));
  if (refused.length) {
    await deleteEvents(
      tx,
      refused.map((r) => r.id),
    );
    for (const r of refused) fresh.delete(r.id);
  }
  const balances = distinct.filter((e): e is BalanceEvent => isBalance(e) && fresh.has(e.id));
  const rows = fresh.size === distinct.length ? planned : balanceRows(balances, defaultLockTag);
  const held = [
    ...(await upsertBalances(tx, 'wallet_balances', rows.wallet)),
    ...(await upsertBalances(tx, 'lock_balances', rows.lock)),
  ];
  // Above the confirmation depth: for the portfolio only (no release or reservation rests on it).
  const shallow = balanceRows(
    distinct.filter((e): e is BalanceEvent => isShallow(e) && fresh.has(e.id)),
    defaultLockTag,
  );
  await upsertUnconfirmed(tx, [...shallow.wallet, ...shallow.lock]);
  const of = <T extends IndexerEvent>(type: T['type']) =>
    distinct.filter((e): e is T => e.type === type && fresh.has(e.id));
  for (const p of of<PriceEvent>('price')) await upsertPrice(tx, p);
  for (const g of of<GasEvent>('gas')) await upsertGasPrice(tx, g);
  for (const l of of<LiquidityEvent>('liquidity')) await upsertLiquidity(tx, l);
  for (const f of of<ForcedWithdrawalEvent>('forced-withdrawal'))
    await upsertForcedWithdrawal(tx, f, splitLockId(f.lockId));
  const lifecycle = distinct.filter(
    (e): e is LifecycleEvent => ['preconfirmation', 'fill', 'claim', 'failure'].includes(e.type) && fresh.has(e.id),
  );
  return {
    received: distinct.length,
    applied: fresh.size,
    duplicates: distinct.length - fresh.size - refused.length,
    ...(refused.length ? { refused: refused.map((r) => ({ index: index.get(r.id)!, ...r })) } : {}),
    deliveries: lifecycle.map((event) => ({ nonce: BigInt(event.nonce).toString(), event })),
    deposits: distinct.filter((e): e is DepositIndexerEvent => DEPOSIT_EVENT_TYPES.includes(e.type) && fresh.has(e.id)),
    snapshotAccounts: [...new Set(held)],
  };
}

/** The rows the balance events store, per table (latest). Built in one pass: a batch has a thousand. */
function balanceRows(balances: BalanceEvent[], defaultLockTag: string): { wallet: Balance[]; lock: Balance[] } {
  const wallet: Balance[] = [];
  const lock: Balance[] = [];
  const lockTag = defaultLockTag.toLowerCase();
  for (const e of balances) {
    const account = e.account.toLowerCase();
    const token = e.token.toLowerCase();
    const block = e.blockNumber;
    const timestamp = e.blockTimestamp;
    const timestampBlock = timestamp === undefined ? undefined : block;
    if (e.unlocked !== undefined)
      wallet.push({ chainId: e.chainId, account, token, amount: e.unlocked, block, timestamp, timestampBlock });
    if (e.locked !== undefined) {
      const tag = e.lockTag === undefined ? lockTag : e.lockTag.toLowerCase();
      lock.push({
        chainId: e.chainId,
        account,
        token,
        lockTag: tag,
        amount: e.locked,
        block,
        timestamp,
        timestampBlock,
      });
    }
  }
  return { wallet: latest(wallet), lock: latest(lock) };
}

/**
 * One row per key: the highest block wins, and on a tie the later event in the batch. Without a timestamp of its
 * own, the winner keeps the one of the row it replaces (and the block it is of): block timestamps never decrease,
 * so it is a lower bound.
 */
export function latest(rows: Balance[]): Balance[] {
  const best = new Map<string, Balance>();
  for (const row of rows) {
    const key = `${row.chainId}:${row.account}:${row.token}:${row.lockTag ?? ''}`;
    const cur = best.get(key);
    if (!cur) best.set(key, row);
    else if (BigInt(row.block) >= BigInt(cur.block)) {
      const stamped = row.timestamp !== undefined ? row : cur;
      best.set(
        key,
        stamped.timestamp === undefined
          ? row
          : { ...row, timestamp: stamped.timestamp, timestampBlock: stamped.timestampBlock },
      );
    }
  }
  // A fixed row order keeps concurrent batches that touch the same keys from deadlocking each other. The default sort
  // (UTF-16 code units, as `<` compares) runs without calling back into JavaScript.
  return [...best.keys()].sort().map((key) => best.get(key)!);
}
