/**
 * The indexer's POST /indexer/events: balance events ingested per second in batches of 1,000 (two indexers posting
 * at once), which also fund the accounts the quotes and submits use; the same batches from one indexer, one after
 * another, for accounts never seen (what a newcomer measures first); and batches of 1 event at each concurrency.
 */
import { randomBytes } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Kit, Result, Stack } from './kit';

export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** 100 USDC locked on Base for `address`, as of `block`. */
export const balance = (address: string, block = '1') => ({
  id: `bench-${address}-${block}`,
  type: 'balance',
  chainId: 8453,
  account: address,
  token: BASE_USDC,
  locked: '100000000',
  blockNumber: block,
});

/** Funds every account (fresh ones, so each is a new balance row) and returns balance events ingested per second. */
export async function benchIngestion(kit: Kit, stack: Stack, accounts: PrivateKeyAccount[]): Promise<number> {
  const batches = Array.from({ length: Math.ceil(accounts.length / 1000) }, (_, i) =>
    accounts.slice(i * 1000, (i + 1) * 1000),
  );
  const ingestion = await kit.measure(
    'POST /indexer/events, batches of 1,000 balance events',
    2,
    batches.length,
    async (i) => {
      await stack.post('/indexer/events', { events: batches[i].map((a) => balance(a.address)) }, 200, stack.indexer);
    },
  );
  return ingestion.rps * 1000;
}

/** Batches of the newcomer's shape: one indexer, one batch at a time. */
const NEWCOMER_BATCHES = 20;

/**
 * One indexer posting batches of 1,000 balance events one after another, each for 1,000 accounts never seen (random
 * addresses: nothing else uses them), as a chain indexer reports them: each of its own block, with the block's
 * timestamp (docs/indexer.md recommends it: it is what releases held funds), so every batch is screened against the
 * stored clock of its chain. Blocks from 1,000,000 on, 2 s apart, a month ago. `rps` is in events per second; p50
 * and p99 are of a batch, and so is `cpu`.
 */
export async function benchNewcomerIngestion(kit: Kit, stack: Stack): Promise<Result> {
  const first = 1_000_000;
  const since = Math.floor(Date.now() / 1000) - 30 * 86_400;
  const batches = Array.from({ length: NEWCOMER_BATCHES }, (_, i) =>
    Array.from({ length: 1000 }, (_, j) => {
      const block = first + i * 1000 + j;
      return {
        ...balance(`0x${randomBytes(20).toString('hex')}`, String(block)),
        blockTimestamp: since + 2 * (block - first),
      };
    }),
  );
  const r = await kit.measure(
    'POST /indexer/events, batches of 1,000 balance events of new accounts, one indexer',
    1,
    batches.length,
    async (i) => {
      await stack.post('/indexer/events', { events: batches[i] }, 200, stack.indexer);
    },
  );
  return { ...r, rps: r.rps * 1000 };
}

/**
 * The newcomer's batches as PostgreSQL alone stores them: per transaction, the 1,000 events recorded by id and their
 * 1,000 balance rows upserted, in tables shaped as `indexer_events` and `lock_balances` (their keys and indexes), by
 * the statements the route runs, their parameters built beforehand. No HTTP, validation, screening or release: what
 * the database's part of a batch alone allows, one transaction after another (the floor the newcomer's row sits on).
 */
export async function benchIngestionFloor(kit: Kit, stack: Stack): Promise<Result> {
  const since = Math.floor(Date.now() / 1000) - 30 * 86_400;
  const batches = Array.from({ length: NEWCOMER_BATCHES }, (_, i) => {
    const events = Array.from({ length: 1000 }, (_, j) => ({
      ...balance(`0x${randomBytes(20).toString('hex')}`, String(1_000_000 + i * 1000 + j)),
      blockTimestamp: since + 2 * (i * 1000 + j),
    }));
    const column = (f: (e: (typeof events)[number]) => string | number) => events.map(f).join(',');
    return {
      document: JSON.stringify(events),
      columns: [
        column((e) => e.chainId),
        column((e) => e.account.toLowerCase()),
        column((e) => e.token.toLowerCase()),
        column(() => '0x000000000000000000000000'),
        column((e) => e.locked),
        column((e) => e.blockNumber),
        column((e) => e.blockTimestamp),
        column((e) => e.blockNumber),
      ],
    };
  });
  await stack.db.query('CREATE TABLE bench_floor_events (LIKE indexer_events INCLUDING ALL)');
  await stack.db.query('CREATE TABLE bench_floor_balances (LIKE lock_balances INCLUDING ALL)');
  const cols = 'chain_id, account, token, lock_tag, amount, block_number, block_timestamp, timestamp_block';
  const types = ['bigint', 'text', 'text', 'text', 'numeric', 'bigint', 'bigint', 'bigint'];
  const arrays = types.map((t, i) => `string_to_array($${i + 1}, ',', 'NULL')::${t}[]`).join(', ');
  try {
    const r = await kit.measure(
      'PostgreSQL alone: 1,000 events recorded and 1,000 balance rows upserted per transaction',
      1,
      batches.length,
      (i) =>
        stack.db.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO bench_floor_events (id, type, payload) SELECT e->>'id', e->>'type', e
             FROM jsonb_array_elements($1::jsonb) e ON CONFLICT (id) DO NOTHING RETURNING id`,
            [batches[i].document],
          );
          await tx.query(
            `INSERT INTO bench_floor_balances (${cols}) SELECT ${cols} FROM unnest(${arrays}) WITH ORDINALITY AS r(${cols}, n)
             ORDER BY n ON CONFLICT (account, chain_id, token, lock_tag) DO UPDATE SET amount = EXCLUDED.amount,
             block_number = EXCLUDED.block_number WHERE bench_floor_balances.block_number <= EXCLUDED.block_number`,
            batches[i].columns,
          );
        }),
    );
    return { ...r, rps: r.rps * 1000 };
  } finally {
    await stack.db.query('DROP TABLE bench_floor_events, bench_floor_balances');
  }
}

/** Blocks of the one-event batches, each new so that every event is applied. */
let eventSeq = 0;

/** One balance event per request for the accounts of `batch`, with `c` indexers. */
export function benchOneEventBatches(kit: Kit, stack: Stack, c: number, batch: PrivateKeyAccount[]): Promise<Result> {
  return kit.measure('POST /indexer/events (batch of 1 event)', c, kit.requests, async (i) => {
    await stack.post(
      '/indexer/events',
      { events: [{ ...balance(batch[i].address, String(10 + eventSeq++)) }] },
      200,
      stack.indexer,
    );
  });
}

/** Intents per batch of lifecycle events: a block range of a busy chain, as the chain indexer reports it. */
export const LIFECYCLE_BATCH = 250;

/**
 * One indexer reporting the fills of intents (`nonces`, submitted and not yet filled) in batches of LIFECYCLE_BATCH,
 * one after another, then their claims in batches of the same size: each event moves its intent's status in the
 * batch's transaction and queues its lifecycle's signal. `rps` is in events per second; p50, p99 and `cpu` are of a
 * batch.
 */
export async function benchLifecycleIngestion(
  kit: Kit,
  stack: Stack,
  nonces: string[],
): Promise<{ fills: Result; claims: Result }> {
  const batches = Array.from({ length: Math.ceil(nonces.length / LIFECYCLE_BATCH) }, (_, i) =>
    nonces.slice(i * LIFECYCLE_BATCH, (i + 1) * LIFECYCLE_BATCH),
  );
  const txHash = () => `0x${randomBytes(32).toString('hex')}`;
  const now = Math.floor(Date.now() / 1000);
  const batchesOf = async (kind: string, event: (nonce: string) => Record<string, unknown>) => {
    const r = await kit.measure(
      `POST /indexer/events, batches of ${LIFECYCLE_BATCH} ${kind}, one indexer`,
      1,
      batches.length,
      async (i) => {
        await stack.post('/indexer/events', { events: batches[i].map(event) }, 200, stack.indexer);
      },
    );
    return { ...r, rps: r.rps * LIFECYCLE_BATCH };
  };
  const fills = await batchesOf('fills', (nonce) => ({
    id: `bench-fill-${nonce}`,
    type: 'fill',
    chainId: 42161,
    nonce,
    transactionHash: txHash(),
    timestamp: now,
  }));
  const claims = await batchesOf('claims', (nonce) => ({
    id: `bench-claim-${nonce}`,
    type: 'claim',
    chainId: 8453,
    nonce,
    transactionHash: txHash(),
    timestamp: now,
    blockNumber: '2',
  }));
  return { fills, claims };
}
