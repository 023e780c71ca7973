/**
 * The chain indexer's backfill throughput beside the raw eth_getLogs rate of the same RPC in the same run. An anvil
 * chain (chain id 8453) with our DevnetCompact, `--logs` Transfer logs mined in blocks of `--per-block` (each block
 * one transaction of our DepositBatcher depositing into a lock for the same `--per-block` accounts: a range's logs
 * touch that many (account, lock) pairs), and in the same blocks `--fills` fills through our Filler (default one per
 * 10 Transfer logs, spread evenly over the blocks; every tenth a `fillTokenOut` of two tokens, two Filled logs, the
 * rest a `fill`), each of an intent recorded beforehand (its quote and its PENDING intent, written in SQL) whose
 * mandate it pays. Then:
 * - raw: eth_getLogs over the whole range, in the indexer's ranges, of both contracts' logs, decoded by viem (what
 *   any indexer pays);
 * - indexer: `readChainRange` (src/chain-indexer/read-range.ts, in-process, without Temporal: its per-range overhead
 *   is one activity task) from the first block to the last, the `balances` and the `settlements` streams at once
 *   (with the Filler configured, INDEXER_FILL_CONTRACT_8453): logs, the block headers, balanceOf of every (account,
 *   lock) at the range's last block, the per-range reads of expired holds and of Permit2-funded holders, the fills
 *   reported with what they paid, and ingestion into a fresh PostgreSQL database (one transaction per 1,000 events),
 *   where each fill is screened against its quote's mandate and moves its intent to FILLED.
 * Usage: npx tsx bench/chain-indexer.ts [--logs 100000] [--per-block 1000] [--range 10] [--fills 10000]
 * Needs DATABASE_URL (a server it may create a database on). Prints the figures (bench/RESULTS.md, Chain indexer
 * backfill, written by hand like Worker memory).
 */
import { chainRpc } from '../src/chains/rpc';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../src/db/types';
import {
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  http,
  maxUint256,
  parseAbiItem,
  toHex,
  type Abi,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifacts from '../solidity/artifacts.json';
import { COMPACT_EVENTS } from '../src/chain-indexer/abi';
import { DEFAULT_FILL_EVENT } from '../src/chain-indexer/config';
import { logsInRange } from '../src/chain-indexer/get-logs';
import { chainIndexerActivities } from '../src/chain-indexer/read-range';
import { loadChainRegistry } from '../src/chains/registry';
import { loadConfig } from '../src/config';
import { openDatabase } from '../src/db/data-source';
import { ensureDatabase, withDatabase } from '../src/db/provision';
import { tokenId } from '../src/intents/quote';
import type { Outbox } from '../src/outbox/outbox';
import { lockTagFor } from '../src/chains/lock-tag';
import type { ChainCursor, ChainStream } from '../workflows/contracts/follow-chain';
import { BASE_USDC, BATCHER_ABI, startAnvil } from './anvil';
import { arg } from './kit';

const LOGS = Number(arg('--logs')) || 100_000;
const PER_BLOCK = Number(arg('--per-block')) || 1000;
const RANGE = Number(arg('--range')) || 10;
const FILLS = arg('--fills') !== undefined ? Number(arg('--fills')) : Math.round(LOGS / 10);
const PORT = 18545;
// The allocator key: the lock tag's allocator (registered with the compact, so the deposits are taken), and whose
// claims count.
const ALLOCATOR = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
// The intents' sponsor (their nonces are `sponsor << 96 | n`, as the allocator's) and origin chain.
const SPONSOR = '0x00000000000000000000000000000000005b0a50';
const ORIGIN = 10;
const FILLED = parseAbiItem(DEFAULT_FILL_EVENT);
const FILLER_ABI = artifacts.Filler.abi as Abi;
const TOKEN_ABI = artifacts.TestToken.abi as Abi;

async function main() {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL');
  const { url, client, wallet, compact, batcher, registerAllocator, stop } = await startAnvil(PORT, 8453);
  try {
    const allocator = privateKeyToAccount(ALLOCATOR).address;
    await registerAllocator(allocator);
    const lockTag = lockTagFor(allocator, 0, 6);
    const from = wallet.account.address;
    const deploy = async (name: 'Filler' | 'TestToken', args: unknown[] = []) => {
      const { abi, bytecode } = artifacts[name];
      const hash = await wallet.deployContract({ chain: null, abi: abi as Abi, bytecode: bytecode as Hex, args });
      return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    };
    const call = async (address: Hex, functionName: string, args: unknown[]) =>
      client.waitForTransactionReceipt({
        hash: await wallet.writeContract({ chain: null, address, abi: TOKEN_ABI, functionName, args }),
      });
    // The fills pay in two tokens of our own, moved by the Filler from the sender.
    const filler = await deploy('Filler');
    const tokens = [
      await deploy('TestToken', ['Test USD', 'TUSD', 6]),
      await deploy('TestToken', ['Test EUR', 'TEUR', 6]),
    ];
    for (const token of tokens) {
      await call(token, 'mint', [from, 2n ** 128n]);
      await call(token, 'approve', [filler, maxUint256]);
    }
    const deadline = Math.floor(Date.now() / 1000) + 86_400;
    const fills = Array.from({ length: FILLS }, (_, i) => fillOf(i, tokens, lockTag, deadline));

    // The intents the fills pay, recorded before their blocks are mined: quoted and submitted (PENDING).
    const database = `bench_chain_indexer_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(adminUrl, database);
    const db = await openDatabase(withDatabase(adminUrl, database), 10);
    if (fills.length) await recordIntents(db, fills, deadline);

    // The load: each block a batch of deposits and its share of the fills, sent with automine off, mined together.
    const test = createTestClient({ mode: 'anvil', transport: http(url) });
    const sender = createWalletClient({ transport: http(url, { batch: { batchSize: 200 } }) });
    let nonce = await client.getTransactionCount({ address: from });
    const send = (to: Hex, data: Hex, gas: bigint) =>
      sender.request({
        method: 'eth_sendTransaction',
        params: [{ from, to, data, gas: toHex(gas), nonce: toHex(nonce++) }],
      });
    const depositGas =
      2n *
      (await client.estimateContractGas({
        account: from,
        address: batcher,
        abi: BATCHER_ABI,
        functionName: 'depositMany',
        args: [compact, BASE_USDC, lockTag, BigInt(PER_BLOCK), 1n],
      }));
    await test.setAutomine(false);
    const first = (await client.getBlockNumber()) + 1n;
    const blocks = Math.ceil(LOGS / PER_BLOCK);
    for (let b = 0; b < blocks; b++) {
      const mints = BigInt(Math.min(PER_BLOCK, LOGS - b * PER_BLOCK));
      const data = encodeFunctionData({
        abi: BATCHER_ABI,
        functionName: 'depositMany',
        args: [compact, BASE_USDC, lockTag, mints, 1n],
      });
      const sends = [send(batcher, data, depositGas)];
      for (let i = Math.floor((b * FILLS) / blocks); i < Math.floor(((b + 1) * FILLS) / blocks); i++)
        sends.push(send(filler, fills[i].data, fills[i].gas));
      await Promise.all(sends);
      await test.mine({ blocks: 1 });
    }
    // One block more: the `settlements` stream reads a block once one is mined on it (INDEXER_SETTLEMENT_CONFIRMATIONS).
    await test.mine({ blocks: 1 });
    const last = (await client.getBlockNumber()) - 1n;
    const filledLogs = fills.reduce((n, f) => n + f.logs, 0);

    // Raw: the same ranges, one eth_getLogs each for both contracts' logs, decoded.
    let rawLogs = 0;
    const rawStart = performance.now();
    for (let from = first; from <= last; from += BigInt(RANGE)) {
      const to = from + BigInt(RANGE) - 1n < last ? from + BigInt(RANGE) - 1n : last;
      rawLogs += (
        await logsInRange(from, to, (fromBlock, toBlock) =>
          client.getLogs({
            address: [compact, filler],
            events: [...COMPACT_EVENTS, FILLED],
            fromBlock,
            toBlock,
            strict: true,
          }),
        )
      ).length;
    }
    const rawSeconds = (performance.now() - rawStart) / 1000;
    // Every transaction of the load succeeded: a reverted one would leave its logs out.
    if (rawLogs !== LOGS + filledLogs) throw new Error(`expected ${LOGS + filledLogs} logs, read ${rawLogs}`);

    const config = loadConfig({
      INDEXER_CHAINS: '8453',
      RPC_URL_8453: url,
      INDEXER_COMPACT_8453: compact,
      INDEXER_FILL_CONTRACT_8453: filler,
      INDEXER_CONFIRMATIONS_8453: '1',
      INDEXER_SETTLEMENT_CONFIRMATIONS_8453: '1',
      INDEXER_START_BLOCK_8453: String(first),
      INDEXER_BLOCK_RANGE_8453: String(RANGE),
      INDEXER_MAX_CLOCK_SKEW_SECONDS: '3600',
    });
    config.secrets.allocatorPrivateKey = ALLOCATOR;
    // Signals and workflow starts are queued in the outbox with each batch, and not performed: no Temporal is needed.
    const outbox = { deliver: async () => 0, start: async () => undefined } as unknown as Outbox;
    const log = { warn: (obj: object, msg: string) => console.warn(msg, JSON.stringify(obj).slice(0, 500)) };
    const { readChainRange } = chainIndexerActivities({
      db,
      config,
      outbox,
      registry: loadChainRegistry(),
      rpc: chainRpc({ RPC_URL_8453: url }),
      defaultLockTag: lockTag,
      log,
    });
    // Each stream from the first block to the last, both at once as the worker runs them (two workflows, each with
    // one read in flight): the backfill's time is until both are done.
    const follow = async (stream: ChainStream) => {
      let cursor: ChainCursor = { last: null, recent: [] };
      let events = 0;
      const start = performance.now();
      while (cursor.last?.number !== last.toString()) {
        const read = await readChainRange(8453, stream, cursor);
        events += read.events;
        cursor = read.cursor;
      }
      return { events, seconds: (performance.now() - start) / 1000 };
    };
    const started = performance.now();
    const [balances, settlements] = await Promise.all([follow('balances'), follow('settlements')]);
    const seconds = (performance.now() - started) / 1000;
    const recorded = new Map<string, number>(
      (
        (await db.query('SELECT type, count(*)::int AS n FROM indexer_events GROUP BY type')) as {
          type: string;
          n: number;
        }[]
      ).map((r) => [r.type, r.n]),
    );
    const [{ filled }] = await db.query("SELECT count(*)::int AS filled FROM intents WHERE status = 'FILLED'");
    await db.destroy();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE ${database}`);
    await admin.end();

    const n = (count: number) => count.toLocaleString('en-US');
    const rate = (count: number, s: number) => n(Math.round(count / s));
    const twoToken = fills.filter((f) => f.logs === 2).length;
    console.log(
      [
        `Chain indexer backfill (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}):`,
        `${n(LOGS)} Transfer logs and ${n(fills.length)} fills (${n(filledLogs)} Filled logs: ${n(twoToken)} fillTokenOut of two tokens) in ${Number(last - first + 1n)} blocks of anvil, ranges of ${RANGE} blocks.`,
        '',
        '| | logs | seconds | logs/s |',
        '|---|---|---|---|',
        `| raw eth_getLogs (decoded; The Compact's and the Filler's logs, one request per range) | ${n(rawLogs)} | ${rawSeconds.toFixed(1)} | ${rate(rawLogs, rawSeconds)} |`,
        `| indexer backfill, both streams (balances: logs → balanceOf per account and lock at each range's end; settlements: fills → what each paid, checked against its mandate; → ingested) | ${n(rawLogs)} | ${seconds.toFixed(1)} | ${rate(rawLogs, seconds)} |`,
        '',
        `The backfill runs at ${Math.round((100 * rawSeconds) / seconds)}% of the raw log rate. ` +
          `balances stream ${balances.seconds.toFixed(1)} s (${n(balances.events)} events), ` +
          `settlements stream ${settlements.seconds.toFixed(1)} s (${n(settlements.events)} events).`,
        `Recorded: ${n(recorded.get('balance') ?? 0)} balance events, ${n(recorded.get('fill') ?? 0)} fill events; ` +
          `intents FILLED: ${n(filled)} of ${n(fills.length)}.`,
      ].join('\n'),
    );
  } finally {
    await stop();
  }
}

interface Fill {
  nonce: bigint;
  operation: object;
  data: Hex;
  gas: bigint;
  /** Filled logs it emits */
  logs: number;
}

/**
 * Fill `i`: an intent's nonce, its stored operation (origin ORIGIN, destination 8453, a recipient of its own, its
 * tokenOut), and the Filler call that pays exactly that. Every tenth pays two tokens with `fillTokenOut`.
 */
function fillOf(i: number, tokens: Hex[], lockTag: string, deadline: number): Fill {
  const nonce = (BigInt(SPONSOR) << 96n) | BigInt(i + 1);
  const recipient = `0x${((0xf111n << 144n) | BigInt(i + 1)).toString(16).padStart(40, '0')}` as Hex;
  const pays = (i % 10 === 9 ? tokens : tokens.slice(0, 1)).map((token, k) => ({
    token,
    id: tokenId(lockTag, token),
    amount: BigInt(1_000_000 + i + k),
  }));
  const mandate = {
    destinationChainId: '8453',
    fillDeadline: String(deadline),
    recipient,
    tokenOut: pays.map((p) => [p.id, p.amount.toString()]),
  };
  const data =
    pays.length === 1
      ? encodeFunctionData({
          abi: FILLER_ABI,
          functionName: 'fill',
          args: [nonce, pays[0].token, recipient, pays[0].amount],
        })
      : encodeFunctionData({
          abi: FILLER_ABI,
          functionName: 'fillTokenOut',
          args: [nonce, recipient, pays.map((p) => [BigInt(p.id), p.amount])],
        });
  return {
    nonce,
    operation: { expires: String(deadline), elements: [{ chainId: String(ORIGIN), mandate }] },
    data,
    gas: 150_000n * BigInt(pays.length),
    logs: pays.length,
  };
}

/** The fills' intents as a submit leaves them: the allocator nonce, the quote, the intent PENDING. */
async function recordIntents(db: Db, fills: Fill[], deadline: number): Promise<void> {
  const rows = JSON.stringify(fills.map((f) => ({ nonce: f.nonce.toString(), operation: f.operation })));
  const r = 'jsonb_to_recordset($1::jsonb) AS r(nonce numeric, operation jsonb)';
  await db.transaction(async (tx) => {
    await tx.query(`INSERT INTO allocator_nonces (nonce, sponsor, purpose) SELECT nonce, $2, 'intent' FROM ${r}`, [
      rows,
      SPONSOR,
    ]);
    await tx.query(
      `INSERT INTO quotes (nonce, account, operation, cost, reservations, expires_at)
       SELECT nonce, $2, operation, '{}', '[]', to_timestamp($3) FROM ${r}`,
      [rows, SPONSOR, deadline],
    );
    await tx.query(
      `INSERT INTO intents (id, account, status, destination_chain_id, origin_chain_ids, fill_deadline, operation, signatures)
       SELECT nonce, $2, 'PENDING', 8453, ARRAY[$3::bigint], $4, operation, '{}' FROM ${r}`,
      [rows, SPONSOR, ORIGIN, deadline],
    );
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
