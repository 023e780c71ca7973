import type { Db, Tx } from '../db/types';
import { plainList } from '../db/plain-list';
import { preparedQuery } from '../db/prepared';
import { withUnreleasedReservation } from '../ledger/store';
import type { ForcedWithdrawalEvent, GasEvent, IndexerEvent, LiquidityEvent, PriceEvent } from './types';

/**
 * A balance snapshot to store. `timestamp`: unix seconds of the block, when the indexer reported it, else of an
 * earlier snapshot of the key (a lower bound); `timestampBlock`: the block whose timestamp it is.
 */
export type Balance = {
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
 * Records events by id; answers the ids not recorded before. The batch travels as one JSON document: a jsonb[]
 * parameter would have the driver escape every quote of every event into an array literal, which cost more CPU than
 * the rest of the batch's SQL.
 */
export async function insertEvents(tx: Tx, events: IndexerEvent[]): Promise<string[]> {
  const inserted: { id: string }[] = await tx.query(
    `INSERT INTO indexer_events (id, type, payload)
     SELECT e->>'id', e->>'type', e FROM jsonb_array_elements($1::jsonb) e
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [JSON.stringify(events)],
  );
  return inserted.map((r) => r.id);
}

/** Forgets refused events, so the same ids sent again are judged again. */
export async function deleteEvents(tx: Tx, ids: string[]): Promise<void> {
  await tx.query('DELETE FROM indexer_events WHERE id = ANY($1::text[])', [ids]);
}

export async function upsertPrice(tx: Tx, p: PriceEvent): Promise<void> {
  await tx.query(
    'INSERT INTO prices (symbol, usd) VALUES ($1, $2) ON CONFLICT (symbol) DO UPDATE SET usd = EXCLUDED.usd, updated_at = now()',
    [p.symbol, p.usd],
  );
}

export async function upsertGasPrice(tx: Tx, g: GasEvent): Promise<void> {
  await tx.query(
    'INSERT INTO gas_prices (chain_id, gas_price) VALUES ($1, $2) ON CONFLICT (chain_id) DO UPDATE SET gas_price = EXCLUDED.gas_price, updated_at = now()',
    [g.chainId, g.gasPrice],
  );
}

export async function upsertLiquidity(tx: Tx, l: LiquidityEvent): Promise<void> {
  await tx.query(
    `INSERT INTO relayer_liquidity (chain_id, settlement_layer, token, amount) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chain_id, settlement_layer, token) DO UPDATE SET amount = EXCLUDED.amount, updated_at = now()`,
    [l.chainId, l.settlementLayer, l.token.toLowerCase(), l.amount],
  );
}

/** The status at the highest block wins, so out-of-order delivery cannot re-enable a lock. */
export async function upsertForcedWithdrawal(
  tx: Tx,
  f: ForcedWithdrawalEvent,
  lock: { lockTag: string; token: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO forced_withdrawals (chain_id, account, lock_id, status, lock_tag, token, block_number) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account, chain_id, lock_id) DO UPDATE SET status = EXCLUDED.status, block_number = EXCLUDED.block_number,
         lock_tag = EXCLUDED.lock_tag, token = EXCLUDED.token, updated_at = now()
       WHERE forced_withdrawals.block_number <= EXCLUDED.block_number`,
    [f.chainId, f.account.toLowerCase(), f.lockId, f.status, lock.lockTag, lock.token, f.blockNumber ?? '0'],
  );
}

/** A column of balance rows: its name, its type and its value in a row. */
type Column = [name: string, type: string, value: (r: Balance) => string | number | undefined];

/**
 * Stores snapshots newer than (or as new as) the stored ones, in the rows' order. One list per column, split into an
 * array (`unnest`): PostgreSQL reads a batch's columns in less time than the same rows as one JSON document
 * (plainList). Prepared: the statement is one of two fixed texts. Answers the rows' accounts that hold a reservation
 * not released yet, whatever the upsert changed (withUnreleasedReservation).
 */
export async function upsertBalances(
  tx: Tx,
  table: 'wallet_balances' | 'lock_balances',
  rows: Balance[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const lock = table === 'lock_balances';
  const lockTag: Column[] = lock ? [['lock_tag', 'text', (r) => r.lockTag]] : [];
  const columns: Column[] = [
    ['chain_id', 'bigint', (r) => r.chainId],
    ['account', 'text', (r) => r.account],
    ['token', 'text', (r) => r.token],
    ...lockTag,
    ['amount', 'numeric', (r) => r.amount],
    ['block_number', 'bigint', (r) => r.block],
    ['block_timestamp', 'bigint', (r) => r.timestamp],
    ['timestamp_block', 'bigint', (r) => r.timestampBlock],
  ];
  const cols = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type], i) => `string_to_array($${i + 1}, ',', 'NULL')::${type}[]`).join(', ');
  const key = lock ? 'account, chain_id, token, lock_tag' : 'account, chain_id, token';
  // WITH ORDINALITY keeps the rows' order, which keeps concurrent batches from deadlocking (apply-events.ts: latest).
  // A newer snapshot without a timestamp keeps the stored one as a lower bound (block timestamps never decrease).
  // The held accounts come in the same round trip, read from the account column the upsert splits too.
  const held: { account: string }[] = await preparedQuery(
    tx,
    `WITH upsert AS (INSERT INTO ${table} (${cols})
     SELECT ${cols} FROM unnest(${arrays}) WITH ORDINALITY AS r(${cols}, n) ORDER BY n
     ON CONFLICT (${key}) DO UPDATE SET amount = EXCLUDED.amount, block_number = EXCLUDED.block_number,
       block_timestamp = coalesce(EXCLUDED.block_timestamp, ${table}.block_timestamp),
       timestamp_block = CASE WHEN EXCLUDED.block_timestamp IS NULL THEN ${table}.timestamp_block ELSE EXCLUDED.timestamp_block END, updated_at = now()
     WHERE ${table}.block_number <= EXCLUDED.block_number)
     SELECT DISTINCT a.account FROM unnest(string_to_array($${columns.findIndex(([name]) => name === 'account') + 1}, ',')) AS a(account) ${withUnreleasedReservation('a.account')}`,
    columns.map(([, , value]) => plainList(rows.map(value))),
  );
  return held.map((h) => h.account);
}

/**
 * Snapshots above their chain's confirmation depth (BalanceEvent.unconfirmed), the newest per key: what the portfolio
 * shows where it is newer than the confirmed one. A wallet's row has the lock tag '' (none).
 */
export async function upsertUnconfirmed(tx: Tx, rows: Balance[]): Promise<void> {
  if (rows.length === 0) return;
  const columns: Column[] = [
    ['chain_id', 'bigint', (r) => r.chainId],
    ['account', 'text', (r) => r.account],
    ['token', 'text', (r) => r.token],
    ['lock_tag', 'text', (r) => r.lockTag ?? ''],
    ['amount', 'numeric', (r) => r.amount],
    ['block_number', 'bigint', (r) => r.block],
  ];
  const cols = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type], i) => `string_to_array($${i + 1}, ',', 'NULL')::${type}[]`).join(', ');
  await preparedQuery(
    tx,
    `INSERT INTO unconfirmed_balances (${cols})
     SELECT ${cols} FROM unnest(${arrays}) WITH ORDINALITY AS r(${cols}, n) ORDER BY n
     ON CONFLICT (account, chain_id, token, lock_tag) DO UPDATE SET amount = EXCLUDED.amount, block_number = EXCLUDED.block_number
     WHERE unconfirmed_balances.block_number <= EXCLUDED.block_number`,
    columns.map(([, , value]) => plainList(rows.map(value))),
  );
}

/** Takes a chain's snapshot clock for the rest of the transaction (screen.ts: lockChainClocks). */
export async function lockChainClock(tx: Tx, chainId: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`snapshot-clock:${chainId}`]);
}

const CLOCK_TABLES = ['wallet_balances', 'lock_balances'];
const nearestTime = (table: string, side: '<=' | '>=', order: 'ASC' | 'DESC', block: string) =>
  `(SELECT timestamp_block, block_timestamp, false AS inside FROM ${table} t
    WHERE t.chain_id = e.chain_id AND t.timestamp_block ${side} ${block} ORDER BY t.timestamp_block ${order}, t.block_timestamp ${order} LIMIT 1)`;

/**
 * Per `chainId:block` key, the stored (block, timestamp) pairs of that chain nearest to the block, below and above
 * (the block itself included), from both balance tables. Two index lookups per pair and table.
 */
export async function nearestStoredTimes(
  tx: Tx,
  blocks: { chainId: string; block: string }[],
): Promise<{ key: string; block: string; timestamp: string }[]> {
  return tx.query(
    `SELECT e.chain_id::text || ':' || e.block::text AS key, n.timestamp_block::text AS block, n.block_timestamp::text AS timestamp
     FROM unnest($1::bigint[], $2::bigint[]) AS e(chain_id, block)
     CROSS JOIN LATERAL (${CLOCK_TABLES.flatMap((table) => [nearestTime(table, '<=', 'DESC', 'e.block'), nearestTime(table, '>=', 'ASC', 'e.block')]).join(' UNION ALL ')}) n`,
    [blocks.map((b) => b.chainId), blocks.map((b) => b.block)],
  );
}

/**
 * Per chain, the stored (block, timestamp) pairs of the span `from`..`to` (both included) and the nearest outside it,
 * below and above, from both balance tables: four index lookups and two range scans per chain, whatever the number
 * of blocks in the span. `inside`: the pairs strictly inside the span, at most `limit` + 1 of them per table (when
 * there are more than the blocks the caller judges, nearestStoredTimes costs less than reading them all). Prepared:
 * planning its six lateral reads cost PostgreSQL more than running them.
 */
export async function storedTimesAcross(
  tx: Tx,
  spans: { chainId: string; from: string; to: string }[],
  limit: number,
): Promise<{ chainId: string; block: string; timestamp: string; inside: boolean }[]> {
  const within = (table: string) =>
    `(SELECT timestamp_block, block_timestamp, true FROM ${table} t
      WHERE t.chain_id = e.chain_id AND t.timestamp_block > e.lo AND t.timestamp_block < e.hi LIMIT $4)`;
  return preparedQuery(
    tx,
    `SELECT e.chain_id::text AS "chainId", n.timestamp_block::text AS block, n.block_timestamp::text AS timestamp, n.inside
     FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS e(chain_id, lo, hi)
     CROSS JOIN LATERAL (${CLOCK_TABLES.flatMap((table) => [nearestTime(table, '<=', 'DESC', 'e.lo'), nearestTime(table, '>=', 'ASC', 'e.hi'), within(table)]).join(' UNION ALL ')}) n`,
    [spans.map((s) => s.chainId), spans.map((s) => s.from), spans.map((s) => s.to), limit + 1],
  );
}

/** Records lifecycle event keys (`nonce:type:chainId`, in key order); answers those not recorded before. */
export async function insertLifecycleKeys(
  tx: Tx,
  keys: { nonce: string; type: string; chainId: string }[],
): Promise<string[]> {
  const fresh: { key: string }[] = await tx.query(
    `INSERT INTO lifecycle_event_keys (nonce, type, chain_id)
     SELECT * FROM unnest($1::numeric[], $2::text[], $3::bigint[]) ORDER BY 1, 2, 3
     ON CONFLICT DO NOTHING RETURNING nonce::text || ':' || type || ':' || chain_id::text AS key`,
    [keys.map((k) => k.nonce), keys.map((k) => k.type), keys.map((k) => k.chainId)],
  );
  return fresh.map((r) => r.key);
}

/** Which of these nonces are withdrawals' (the allocator's, not intents'). */
export async function withdrawalNonces(tx: Tx, nonces: string[]): Promise<string[]> {
  const rows: { nonce: string }[] = await tx.query(
    "SELECT nonce::text FROM withdrawals WHERE nonce = ANY(string_to_array($1, ',')::numeric[])",
    [plainList(nonces)],
  );
  return rows.map((w) => w.nonce);
}

/**
 * Deletes up to `limit` lifecycle event keys (the dedupe of preconfirmations and failures, src/ingestion/event-keys.ts)
 * older than `days` days (a chunk of a retention run): kept while their nonce's intent or bundle has not ended
 * (COMPLETED, or released at `expires`), or its quote is unspent and may still be submitted. A row changed meanwhile
 * is left (its ctid no longer matches). Returns how many.
 */
export async function deleteExpiredEventKeys(db: Db, days: number, limit: number): Promise<number> {
  const [, deleted]: [unknown, number] = await db.query(
    `DELETE FROM lifecycle_event_keys WHERE ctid = ANY(ARRAY(SELECT k.ctid FROM lifecycle_event_keys k WHERE k.created_at < now() - make_interval(days => $1)
      AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.id = k.nonce AND i.status <> 'COMPLETED' AND i.released_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM bundles b WHERE b.id = k.nonce AND b.status <> 'COMPLETED' AND b.released_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM quotes q WHERE q.nonce = k.nonce AND q.expires_at > now()
                      AND NOT EXISTS (SELECT 1 FROM intents i WHERE i.id = q.nonce) AND NOT EXISTS (SELECT 1 FROM bundles b WHERE b.id = q.nonce)) LIMIT $2))`,
    [days, limit],
  );
  return deleted;
}
