/**
 * Head → visible at depth 0: the whole stack (bench/stack.ts: Temporal, PostgreSQL, a worker, the API) with the
 * worker following an anvil chain (chain id 8453, our DevnetCompact with the service's allocator registered) at
 * `INDEXER_CONFIRMATIONS_8453=0` and `INDEXER_POLL_MS` = `--poll-ms`. One block at a time: a deposit into a lock for
 * a fresh account is mined (anvil mines on send: the clock starts when the send returns), then the account's
 * portfolio is read through the HTTP API every `--probe-ms` until the deposit shows; p50, p99 and max over `--blocks`
 * blocks.
 * Usage: npx tsx bench/chain-indexer-latency.ts [--blocks 200] [--poll-ms 100] [--probe-ms 5]
 * Needs DATABASE_URL and TEMPORAL_CLI like npm run bench. Prints the figures (bench/RESULTS.md, Chain indexer
 * head to visible, written by hand like Chain indexer backfill).
 */
import os from 'node:os';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { maxUint256, type Abi, type Hex } from 'viem';
import artifacts from '../solidity/artifacts.json';
import { BASE_USDC, COMPACT_ABI, startAnvil } from './anvil';
import { arg, runBench, type Kit } from './kit';
import { percentile } from './measure';
import { startStack } from './stack';

const BLOCKS = Number(arg('--blocks')) || 200;
const POLL_MS = Number(arg('--poll-ms')) || 100;
const PROBE_MS = Number(arg('--probe-ms')) || 5;
const PORT = 18546;
const AMOUNT = 1_000_000n;

const cleanup: Kit['cleanup'] = [];

async function main() {
  const chain = await startAnvil(PORT, 8453);
  cleanup.push(chain.stop);
  const stack = await startStack(cleanup, {
    env: {
      INDEXER_CHAINS: '8453',
      RPC_URL_8453: chain.url,
      INDEXER_COMPACT_8453: chain.compact,
      INDEXER_CONFIRMATIONS_8453: '0',
      INDEXER_START_BLOCK_8453: String(await chain.client.getBlockNumber()),
      INDEXER_POLL_MS: String(POLL_MS),
    },
  });
  const { lockTag, allocatorAddress } = (await (await fetch(`${stack.url}/health`)).json()) as {
    lockTag: Hex;
    allocatorAddress: Hex;
  };
  await chain.registerAllocator(allocatorAddress);
  // The deposits are the deployer's USDC, which the compact may take: one transaction each.
  const usdc = async (functionName: string, args: unknown[]) =>
    chain.client.waitForTransactionReceipt({
      hash: await chain.wallet.writeContract({
        chain: null,
        address: BASE_USDC,
        abi: artifacts.TestToken.abi as Abi,
        functionName,
        args,
      }),
    });
  await usdc('mint', [chain.wallet.account.address, 2n ** 200n]);
  await usdc('approve', [chain.compact, maxUint256]);
  const locked = async (account: string) => {
    const res = await fetch(`${stack.url}/accounts/${account}/portfolio`, { headers: stack.headers });
    const { portfolio } = (await res.json()) as {
      portfolio?: { tokenChainBalance: { chainId: number; balance: { locked: string } }[] }[];
    };
    return portfolio?.flatMap((t) => t.tokenChainBalance).find((c) => c.chainId === 8453)?.balance.locked;
  };
  const latencies: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const account = privateKeyToAccount(generatePrivateKey()).address;
    await chain.wallet.writeContract({
      chain: null,
      address: chain.compact,
      abi: COMPACT_ABI,
      functionName: 'depositERC20',
      args: [BASE_USDC, lockTag, AMOUNT, account],
    });
    const mined = performance.now();
    while ((await locked(account)) !== AMOUNT.toString()) await new Promise((r) => setTimeout(r, PROBE_MS));
    latencies.push(performance.now() - mined);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v).toLocaleString('en-US');
  console.log(
    [
      `Chain indexer head to visible (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}):`,
      `${BLOCKS} blocks of anvil, one deposit into a lock each, confirmations 0, INDEXER_POLL_MS=${POLL_MS}, portfolio read every ${PROBE_MS} ms.`,
      '',
      '| | blocks | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      `| block mined → deposit in the portfolio (GET /accounts/:account/portfolio) | ${BLOCKS} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} | ${ms(sorted[sorted.length - 1])} |`,
    ].join('\n'),
  );
}

runBench(main, cleanup);
