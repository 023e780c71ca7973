/**
 * The chain indexer's backfill throughput beside the raw eth_getLogs rate of the same RPC in the same run. An anvil
 * chain (chain id 8453) with our CompactEvents, `--logs` Transfer logs mined in blocks of `--per-block` (each block
 * mints to the same `--per-block` accounts: a range's logs touch that many (account, lock) pairs), then:
 * - raw: eth_getLogs over the whole range, in the indexer's ranges, logs decoded by viem (what any indexer pays);
 * - indexer: `readChainRange` (src/chain-indexer/read-range.ts, in-process, without Temporal: its per-range overhead
 *   is one activity task) from the first block to the head: logs, the block headers, balanceOf of every (account,
 *   lock) at the range's last block, and ingestion into a fresh PostgreSQL database (one transaction per 1,000 events).
 * Usage: npx tsx bench/chain-indexer.ts [--logs 100000] [--per-block 1000] [--range 10]
 * Needs DATABASE_URL (a server it may create a database on). Prints the figures (bench/RESULTS.md, Chain indexer
 * backfill, written by hand like Worker memory).
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { COMPACT_EVENTS } from '../src/chain-indexer/abi';
import { logsInRange } from '../src/chain-indexer/get-logs';
import { chainIndexerActivities } from '../src/chain-indexer/read-range';
import { loadChainRegistry } from '../src/chains/registry';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { ensureDatabase, withDatabase } from '../src/db/provision';
import { tokenId } from '../src/intents/quote';
import type { Outbox } from '../src/outbox/outbox';
import { lockTagFor } from '../src/chains/lock-tag';
import type { ChainCursor } from '../workflows/contracts/follow-chain';
import { COMPACT_ABI, startAnvil } from './anvil';
import { arg } from './kit';

const LOGS = Number(arg('--logs')) || 100_000;
const PER_BLOCK = Number(arg('--per-block')) || 1000;
const RANGE = Number(arg('--range')) || 10;
const PORT = 18545;
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
// The allocator key only names whose claims count.
const ALLOCATOR = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

async function main() {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL');
  const { url, client, wallet, compact, stop } = await startAnvil(PORT, 8453);
  try {
    const lockTag = lockTagFor(privateKeyToAccount(ALLOCATOR).address, 0, 6);
    const id = BigInt(tokenId(lockTag, BASE_USDC));
    const first = (await client.getBlockNumber()) + 1n;
    for (let mined = 0; mined < LOGS; mined += PER_BLOCK) {
      const hash = await wallet.writeContract({
        chain: null,
        address: compact,
        abi: COMPACT_ABI,
        functionName: 'depositMany',
        args: [BigInt(Math.min(PER_BLOCK, LOGS - mined)), id, 1n],
      });
      await client.waitForTransactionReceipt({ hash });
    }
    const head = await client.getBlockNumber();

    // Raw: the same ranges, one eth_getLogs each, decoded.
    let rawLogs = 0;
    const rawStart = performance.now();
    for (let from = first; from <= head; from += BigInt(RANGE)) {
      const to = from + BigInt(RANGE) - 1n < head ? from + BigInt(RANGE) - 1n : head;
      rawLogs += (
        await logsInRange(from, to, (fromBlock, toBlock) =>
          client.getLogs({ address: compact, events: COMPACT_EVENTS, fromBlock, toBlock, strict: true }),
        )
      ).length;
    }
    const rawSeconds = (performance.now() - rawStart) / 1000;

    const database = `bench_chain_indexer_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(adminUrl, database);
    const db = await openDatabase(withDatabase(adminUrl, database), 10);
    const config = loadConfig({
      INDEXER_CHAINS: '8453',
      RPC_URL_8453: url,
      INDEXER_COMPACT_8453: compact,
      INDEXER_CONFIRMATIONS_8453: '0',
      INDEXER_START_BLOCK_8453: String(first),
      INDEXER_BLOCK_RANGE_8453: String(RANGE),
      INDEXER_MAX_CLOCK_SKEW_SECONDS: '3600',
    });
    config.secrets.allocatorPrivateKey = ALLOCATOR;
    // Balance snapshots queue no lifecycle signal and no workflow start: no Temporal is needed.
    const outbox = { deliver: async () => 0, start: async () => undefined } as unknown as Outbox;
    const log = { warn: (obj: object, msg: string) => console.warn(msg, obj) };
    const { readChainRange } = chainIndexerActivities({
      db,
      config,
      outbox,
      registry: loadChainRegistry(),
      defaultLockTag: lockTag,
      log,
    });
    let cursor: ChainCursor = { last: null, recent: [] };
    let events = 0;
    const start = performance.now();
    for (;;) {
      const read = await readChainRange(8453, 'balances', cursor);
      events += read.events;
      cursor = read.cursor;
      if (cursor.last?.number === head.toString()) break;
    }
    const seconds = (performance.now() - start) / 1000;
    const [{ n }] = await db.query("SELECT count(*)::int AS n FROM indexer_events WHERE type = 'balance'");
    await db.destroy();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE ${database}`);
    await admin.end();

    const rate = (count: number, s: number) => Math.round(count / s).toLocaleString('en-US');
    console.log(
      [
        `Chain indexer backfill (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}):`,
        `${rawLogs.toLocaleString('en-US')} Transfer logs in ${Number(head - first + 1n)} blocks of anvil, ranges of ${RANGE} blocks.`,
        '',
        '| | logs | seconds | logs/s |',
        '|---|---|---|---|',
        `| raw eth_getLogs (decoded) | ${rawLogs.toLocaleString('en-US')} | ${rawSeconds.toFixed(1)} | ${rate(rawLogs, rawSeconds)} |`,
        `| indexer backfill (logs → balanceOf per account and lock at each range's end → ingested) | ${rawLogs.toLocaleString('en-US')} | ${seconds.toFixed(1)} | ${rate(rawLogs, seconds)} |`,
        '',
        `Events ingested: ${events.toLocaleString('en-US')} (balance events recorded: ${Number(n).toLocaleString('en-US')}).`,
      ].join('\n'),
    );
  } finally {
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
