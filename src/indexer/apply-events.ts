import type { EntityManager } from 'typeorm';
import { splitLockId } from '../chains/lock-tag';
import {
  DEPOSIT_EVENT_TYPES,
  type BalanceEvent,
  type Refusal,
  type Delivery,
  type DepositIndexerEvent,
  type ForcedWithdrawalEvent,
  type GasEvent,
  type IndexerEvent,
  type IngestResult,
  type LifecycleEvent,
  type LiquidityEvent,
  type PriceEvent,
} from './types';

/**
 * `timestamp`: unix seconds of the block, when the indexer reported it, else of an earlier snapshot of the key (a lower
 * bound); `timestampBlock`: the block whose timestamp it is.
 */
type Balance = {
  chainId: number;
  account: string;
  token: string;
  lockTag?: string;
  amount: string;
  block: string;
  timestamp?: number;
  timestampBlock?: string;
};

/**
 * Records events by id and applies the new ones, in the caller's transaction. Re-sent ids change nothing, so the
 * activity that calls this may run twice. A snapshot older than the stored block is ignored (out-of-order delivery).
 * `screen` judges the new events against what is stored (src/indexer/screen.ts): those it refuses are neither
 * applied nor recorded, so the same id sent again is judged again. `snapshotAccounts`: the accounts with new
 * snapshots, whose settled reservations the caller releases (last, after the batch's claims are recorded:
 * src/indexer/ingest.ts).
 */
export async function applyEvents(
  tx: EntityManager,
  events: IndexerEvent[],
  defaultLockTag: string,
  screen?: (fresh: IndexerEvent[]) => Promise<Refusal[]>,
): Promise<IngestResult & { deliveries: Delivery[]; deposits: DepositIndexerEvent[]; snapshotAccounts: string[] }> {
  const seen = new Set<string>();
  const index = new Map<string, number>();
  const distinct = events.filter((e, i) => !seen.has(e.id) && seen.add(e.id) && index.set(e.id, i)); // first occurrence of an id wins
  const inserted: { id: string }[] = await tx.query(
    `INSERT INTO indexer_events (id, type, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [distinct.map((e) => e.id), distinct.map((e) => e.type), distinct.map((e) => JSON.stringify(e))],
  );
  const fresh = new Set(inserted.map((r) => r.id));
  const refused = screen ? await screen(distinct.filter((e) => fresh.has(e.id))) : [];
  if (refused.length) {
    await tx.query('DELETE FROM indexer_events WHERE id = ANY($1::text[])', [refused.map((r) => r.id)]);
    for (const r of refused) fresh.delete(r.id);
  }
  const balances = distinct.filter((e): e is BalanceEvent => e.type === 'balance' && fresh.has(e.id));
  const stamp = (e: BalanceEvent) => ({
    block: e.blockNumber,
    timestamp: e.blockTimestamp,
    timestampBlock: e.blockTimestamp === undefined ? undefined : e.blockNumber,
  });
  await upsertBalances(
    tx,
    'wallet_balances',
    latest(
      balances
        .filter((e) => e.unlocked !== undefined)
        .map((e) => ({
          chainId: e.chainId,
          account: e.account.toLowerCase(),
          token: e.token.toLowerCase(),
          amount: e.unlocked!,
          ...stamp(e),
        })),
    ),
  );
  await upsertBalances(
    tx,
    'lock_balances',
    latest(
      balances
        .filter((e) => e.locked !== undefined)
        .map((e) => ({
          chainId: e.chainId,
          account: e.account.toLowerCase(),
          token: e.token.toLowerCase(),
          lockTag: (e.lockTag ?? defaultLockTag).toLowerCase(),
          amount: e.locked!,
          ...stamp(e),
        })),
    ),
  );
  const of = <T extends IndexerEvent>(type: T['type']) =>
    distinct.filter((e): e is T => e.type === type && fresh.has(e.id));
  for (const p of of<PriceEvent>('price')) {
    await tx.query(
      'INSERT INTO prices (symbol, usd) VALUES ($1, $2) ON CONFLICT (symbol) DO UPDATE SET usd = EXCLUDED.usd, updated_at = now()',
      [p.symbol, p.usd],
    );
  }
  for (const g of of<GasEvent>('gas')) {
    await tx.query(
      'INSERT INTO gas_prices (chain_id, gas_price) VALUES ($1, $2) ON CONFLICT (chain_id) DO UPDATE SET gas_price = EXCLUDED.gas_price, updated_at = now()',
      [g.chainId, g.gasPrice],
    );
  }
  for (const l of of<LiquidityEvent>('liquidity')) {
    await tx.query(
      `INSERT INTO relayer_liquidity (chain_id, settlement_layer, token, amount) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id, settlement_layer, token) DO UPDATE SET amount = EXCLUDED.amount, updated_at = now()`,
      [l.chainId, l.settlementLayer, l.token.toLowerCase(), l.amount],
    );
  }
  for (const f of of<ForcedWithdrawalEvent>('forced-withdrawal')) {
    // The status at the highest block wins, so out-of-order delivery cannot re-enable a lock.
    const { lockTag, token } = splitLockId(f.lockId);
    await tx.query(
      `INSERT INTO forced_withdrawals (chain_id, account, lock_id, status, lock_tag, token, block_number) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account, chain_id, lock_id) DO UPDATE SET status = EXCLUDED.status, block_number = EXCLUDED.block_number,
         lock_tag = EXCLUDED.lock_tag, token = EXCLUDED.token, updated_at = now()
       WHERE forced_withdrawals.block_number <= EXCLUDED.block_number`,
      [f.chainId, f.account.toLowerCase(), f.lockId, f.status, lockTag, token, f.blockNumber ?? '0'],
    );
  }
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
    snapshotAccounts: [...new Set(balances.map((e) => e.account.toLowerCase()))],
  };
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
    if (!cur || BigInt(row.block) >= BigInt(cur.block)) {
      const stamped = row.timestamp !== undefined ? row : cur;
      best.set(
        key,
        stamped?.timestamp === undefined
          ? row
          : { ...row, timestamp: stamped.timestamp, timestampBlock: stamped.timestampBlock },
      );
    }
  }
  // A fixed row order keeps concurrent batches that touch the same keys from deadlocking each other.
  return [...best.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

async function upsertBalances(
  tx: EntityManager,
  table: 'wallet_balances' | 'lock_balances',
  rows: Balance[],
): Promise<void> {
  if (rows.length === 0) return;
  const lock = table === 'lock_balances';
  const cols = `chain_id, account, token, ${lock ? 'lock_tag, ' : ''}amount, block_number, block_timestamp, timestamp_block`;
  const types = lock
    ? '$1::bigint[], $2::text[], $3::text[], $4::text[], $5::numeric[], $6::bigint[], $7::bigint[], $8::bigint[]'
    : '$1::bigint[], $2::text[], $3::text[], $4::numeric[], $5::bigint[], $6::bigint[], $7::bigint[]';
  const key = lock ? 'account, chain_id, token, lock_tag' : 'account, chain_id, token';
  const params: unknown[][] = [rows.map((r) => r.chainId), rows.map((r) => r.account), rows.map((r) => r.token)];
  if (lock) params.push(rows.map((r) => r.lockTag!));
  params.push(
    rows.map((r) => r.amount),
    rows.map((r) => r.block),
    rows.map((r) => r.timestamp ?? null),
    rows.map((r) => r.timestampBlock ?? null),
  );
  // A newer snapshot without a timestamp keeps the stored one as a lower bound (block timestamps never decrease).
  await tx.query(
    `INSERT INTO ${table} (${cols}) SELECT * FROM unnest(${types})
     ON CONFLICT (${key}) DO UPDATE SET amount = EXCLUDED.amount, block_number = EXCLUDED.block_number,
       block_timestamp = coalesce(EXCLUDED.block_timestamp, ${table}.block_timestamp),
       timestamp_block = CASE WHEN EXCLUDED.block_timestamp IS NULL THEN ${table}.timestamp_block ELSE EXCLUDED.timestamp_block END, updated_at = now()
     WHERE ${table}.block_number <= EXCLUDED.block_number`,
    params,
  );
}
