/** The chain reads of a range (src/chain-indexer/read-range.ts): its blocks, its logs, its balances and nonces. */
import type { Block, PublicClient } from 'viem';
import type { BalanceKey, ChainStream } from '../../workflows/contracts/follow-chain';
import { COMPACT_BALANCE, ERC20_BALANCE, PERMIT2_NONCES } from './abi';
import { balanceLogs, inChainOrder, settlementLogs, type ChainLog } from './chain-logs';
import type { FollowedChain } from './config';

/**
 * balanceOf calls per multicall eth_call: a deployless call is creation code with the calls as its arguments, which
 * must stay below the 48 KiB initcode limit (EIP-3860); 100 calls take about 31 KiB and a million gas.
 */
const MULTICALL_CALLS = 100;

/** What a range's reads of the chain found: its ends, its stream's logs and the headers of their blocks. */
export interface ChainRead {
  head: bigint;
  to: bigint;
  fromBlock: Block;
  toBlock: Block;
  /** the accounts whose transfers `logs` holds (the `settlements` stream's filters), as `filterKey` writes them */
  filter: string;
  logs: ChainLog[];
  blocks: Map<bigint, Block>;
}

/** A range's first and last blocks' headers, read together. */
export async function ends(client: PublicClient, from: bigint, to: bigint): Promise<[Block, Block]> {
  if (from === to) {
    const block = await client.getBlock({ blockNumber: to });
    return [block, block];
  }
  return Promise.all([client.getBlock({ blockNumber: from }), client.getBlock({ blockNumber: to })]);
}

/**
 * Balances read above the settlement depth are the portfolio's alone: the ledger's lock balances are then read in the
 * settlements stream too, at its depth, so no reservation, release or credit rests on what a reorg can undo.
 */
export const shallowBalances = (chain: FollowedChain) => chain.confirmations < chain.settlementConfirmations;

/** The `settlements` stream's filters in one string: a range read ahead is taken only with the same. */
export const filterKey = (filter: { accounts: string[]; spenders: string[] }) =>
  JSON.stringify([filter.accounts, [...filter.spenders].sort()]);

/**
 * A range's logs of its stream and the headers of their blocks, each log checked against its block's header: logs of
 * a block a reorg replaced while the range was read fail the read.
 */
export async function readLogs(
  allocator: string,
  chain: FollowedChain,
  stream: ChainStream,
  client: PublicClient,
  filter: { accounts: string[]; spenders: string[] },
  from: bigint,
  range: Omit<ChainRead, 'filter' | 'logs' | 'blocks'>,
): Promise<ChainRead> {
  const { to, toBlock } = range;
  const shallow = shallowBalances(chain);
  const logs =
    stream === 'settlements'
      ? inChainOrder(
          (
            await Promise.all([
              settlementLogs(client, chain, allocator, filter, from, to),
              shallow ? balanceLogs(client, chain, from, to) : [],
            ])
          ).flat(),
        )
      : await balanceLogs(client, chain, from, to);
  const blocks = new Map<bigint, Block>([[to, toBlock]]);
  // Concurrently: the transport batches them into few JSON-RPC requests.
  const headers = [...new Set(logs.map((l) => l.blockNumber))].filter((n) => n !== to);
  for (const b of await Promise.all(headers.map((n) => client.getBlock({ blockNumber: n })))) blocks.set(b.number!, b);
  for (const l of logs) {
    if (blocks.get(l.blockNumber)!.hash !== l.blockHash)
      throw new Error(`block ${l.blockNumber} of chain ${chain.chainId} changed while its range was read`);
  }
  return { ...range, filter: filterKey(filter), logs, blocks };
}

export async function nonceSpent(
  client: PublicClient,
  chain: FollowedChain,
  owner: string,
  nonce: bigint,
  block: bigint,
): Promise<boolean> {
  const word = await client.readContract({
    address: chain.permit2,
    abi: PERMIT2_NONCES,
    functionName: 'nonceBitmap',
    args: [owner as `0x${string}`, nonce >> 8n],
    blockNumber: block,
  });
  return ((word >> (nonce & 0xffn)) & 1n) === 1n;
}

/**
 * Every balance in a few eth_calls, sent together: viem's multicall, deployless (Multicall3's code runs in the call, so
 * no chain needs it deployed). A balanceOf that fails fails the read, as a call of its own would.
 */
export async function balancesOf(
  client: PublicClient,
  chain: FollowedChain,
  keys: BalanceKey[],
  block: bigint,
): Promise<bigint[]> {
  const calls = keys.map((key) =>
    'lockId' in key
      ? {
          address: chain.compact,
          abi: COMPACT_BALANCE,
          functionName: 'balanceOf' as const,
          args: [key.account as `0x${string}`, BigInt(key.lockId)] as const,
        }
      : {
          address: key.token as `0x${string}`,
          abi: ERC20_BALANCE,
          functionName: 'balanceOf' as const,
          args: [key.account as `0x${string}`] as const,
        },
  );
  const chunks: (typeof calls)[] = [];
  for (let i = 0; i < calls.length; i += MULTICALL_CALLS) chunks.push(calls.slice(i, i + MULTICALL_CALLS));
  const read = await Promise.all(
    chunks.map((contracts) =>
      client.multicall({ contracts, allowFailure: false, deployless: true, batchSize: 0, blockNumber: block }),
    ),
  );
  return read.flat() as bigint[];
}
