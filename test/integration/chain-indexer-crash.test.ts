import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Abi, Hex } from 'viem';
import artifacts from '../../solidity/artifacts.json';
import { waitFor } from '../../src/dev/processes';
import { compactAddress } from '../../src/compact/config';
import { tokenId } from '../../src/intents/quote';
import { Api, call, killWorkers, startApi, startWorker } from '../support/harness';
import { ARB_USDC } from '../support/fixtures';
import { DP, registerManaged } from '../support/deposits';
import { newProject, subscribe, type Project } from '../support/projects';
import { Receiver } from '../support/receiver';
import {
  compactAt,
  deposit,
  fundDeposits,
  startIndexedChain,
  tokenAt,
  type IndexedChain,
} from '../support/indexed-chain';

/**
 * kill -9 of the worker that reads a chain, in the middle of its backfill: a chain (Ethereum's id, followed by no
 * other test) with a transfer into a deposit account and a deposit into a lock in every block, read one block per
 * range; the worker is killed once some of it has reached the service, and started again. Every event must reach
 * the service exactly once: each transfer one deposit and one webhook, each balance the chain's.
 */
// Above the sum of its waits' bounds, so a slow run fails at the wait that names what it waited for.
jest.setTimeout(420_000);

const CHAIN = 1;
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const TRANSFERS = 30;

let api: Api;
let chain: IndexedChain;
let compact: Hex;
let lockTag: string;
let p: Project;
let r: Receiver;

beforeAll(async () => {
  // Anvil's blocks are numbered from 0 at today's timestamps: kept apart from the stamped events of other suites.
  api = await startApi({ ownDatabase: true });
  chain = await startIndexedChain(CHAIN);
  const health = (await call(api, 'GET', '/health')).json;
  lockTag = health.lockTag;
  // Real deposits into the service's lock: the compact with the service's allocator its lock tag names.
  compact = await compactAt(chain, compactAddress(api.env.env) as Hex, health.allocatorAddress);
  await tokenAt(chain, USDC);
  await fundDeposits(chain, compact, USDC);
  p = await newProject(api, 'chain-indexer-crash');
  r = await new Receiver([]).start();
  await subscribe(p, r);
}, 120_000);
afterAll(async () => {
  await r?.close();
  await chain?.local.stop();
  await api.close();
});

const balanceOf = (address: Hex, functionName: string, args: unknown[]) =>
  chain.public.readContract({ address, abi: artifacts.TestToken.abi as Abi, functionName, args }) as Promise<bigint>;
const compactBalance = (account: string, id: bigint) =>
  chain.public.readContract({
    address: compact,
    abi: artifacts.DevnetCompact.abi as Abi,
    functionName: 'balanceOf',
    args: [account, id],
  }) as Promise<bigint>;

async function usdc(account: string): Promise<{ locked: string; unlocked: string } | undefined> {
  const { json } = await call(api, 'GET', `/accounts/${account}/portfolio`);
  return json.portfolio
    ?.flatMap((t: { tokenChainBalance: { chainId: number; balance: { locked: string; unlocked: string } }[] }) =>
      t.tokenChainBalance.filter((c) => c.chainId === CHAIN),
    )
    .map((c: { balance: { locked: string; unlocked: string } }) => c.balance)[0];
}

test('a worker killed with SIGKILL mid-backfill loses and duplicates nothing once restarted', async () => {
  const lockId = BigInt(tokenId(lockTag, USDC));
  const accounts = await Promise.all(
    [0, 1, 2].map(async () => (await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC })).address),
  );
  const sponsors = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()).address);
  const first = (await chain.public.getBlockNumber()) + 1n;
  await chain.send(USDC, 'TestToken', 'mint', [chain.sender.address, 10n ** 12n]);
  const transfers: Hex[] = [];
  for (let i = 0; i < TRANSFERS; i++) {
    transfers.push(await chain.send(USDC, 'TestToken', 'transfer', [accounts[i % 3], BigInt(1_000_000 + i)]));
    await deposit(chain, compact, lockTag, USDC, sponsors[i % 3], BigInt(2_000_000 + i));
  }
  await chain.test.mine({ blocks: 1 }); // the settlements' depth

  const indexing = {
    ...api.env,
    env: {
      ...api.env.env,
      INDEXER_CHAINS: String(CHAIN),
      [`RPC_URL_${CHAIN}`]: chain.local.url,
      [`INDEXER_COMPACT_${CHAIN}`]: compact,
      [`INDEXER_START_BLOCK_${CHAIN}`]: first.toString(),
      [`INDEXER_CONFIRMATIONS_${CHAIN}`]: '0',
      [`INDEXER_SETTLEMENT_CONFIRMATIONS_${CHAIN}`]: '1',
      // A block per range: the backfill takes some sixty reads per stream.
      [`INDEXER_BLOCK_RANGE_${CHAIN}`]: '1',
      INDEXER_POLL_MS: '200',
    },
  };
  const deposited = async () =>
    Number(
      (
        await api.db.query(`SELECT count(*)::int AS n FROM indexer_events WHERE type = 'deposit' AND id LIKE $1`, [
          `chain:${CHAIN}:%`,
        ])
      )[0].n,
    );
  await startWorker(indexing);
  await waitFor('the first deposits', async () => (await deposited()) >= 5, 60_000);
  killWorkers(api.env);
  const atKill = await deposited();
  expect(atKill).toBeLessThan(TRANSFERS);

  await startWorker(indexing);
  const listed = async () =>
    (
      await Promise.all(
        accounts.map(
          async (a) =>
            (await call(p, 'GET', `${DP}/deposits?account=${a}&limit=100`)).json.deposits as { txHash: string }[],
        ),
      )
    ).flat();
  const received = () => [...r.accepted.values()].filter((d) => d.json.type === 'deposit-received');
  await waitFor(
    'every deposit and its webhook',
    async () => (await listed()).length >= TRANSFERS && received().length >= TRANSFERS,
    // Seconds alone: a busy run's shared Temporal takes several times longer over its one-block ranges.
    240_000,
  );
  for (const a of accounts)
    await waitFor(
      'the deposit accounts balances',
      async () => (await usdc(a))?.unlocked === (await balanceOf(USDC, 'balanceOf', [a])).toString(),
      60_000,
    );
  for (const s of sponsors)
    await waitFor(
      'the locks',
      async () => (await usdc(s))?.locked === (await compactBalance(s, lockId)).toString(),
      60_000,
    );

  expect(await deposited()).toBe(TRANSFERS);
  expect((await listed()).map((d) => d.txHash).sort()).toEqual([...transfers].sort());
  // One webhook per deposit: webhook-ids are the receiver's keys, and no deposit has two.
  expect(received()).toHaveLength(TRANSFERS);
  expect(new Set(received().map((d) => d.json.data.transactionHash))).toEqual(new Set(transfers));
});
