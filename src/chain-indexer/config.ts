import { parseAbiItem, type AbiEvent } from 'viem';
import { rpcUrlOf } from '../chains/rpc';
import { compactAddress } from '../compact/config';
import { addressVar, ConfigError, int } from '../env';
import { PERMIT2_ADDRESS } from '../intents/typed-data';

/** The event our filler contract emits (solidity/Filler.sol); another settlement layer's is configured per chain. */
export const DEFAULT_FILL_EVENT =
  'event Filled(uint256 indexed nonce, address indexed recipient, address token, uint256 amount)';

/** One chain the indexer follows (docs/chain-indexer.md). */
export interface FollowedChain {
  chainId: number;
  /** the first block read when the chain has no cursor yet */
  startBlock: number;
  /** a block is reported once this many blocks are mined on top of it (0: at once, corrected after a reorg) */
  confirmations: number;
  /** the same for what no later event can take back (the `settlements` stream): at least 1 and `confirmations` */
  settlementConfirmations: number;
  /** blocks per eth_getLogs request (a range the RPC refuses as too large is split) */
  blockRange: number;
  compact: `0x${string}`;
  /** the contract whose `fillEvent` (with a `nonce` argument) reports fills on this chain, when it is a destination */
  filler?: `0x${string}`;
  fillEvent: string;
  /** Permit2, whose nonce bitmap tells which Permit2-funded intents were claimed */
  permit2: `0x${string}`;
}

export interface ChainIndexerConfig {
  chains: FollowedChain[];
  /** how long (ms) a workflow caught up with its chain waits before it looks for new blocks */
  pollMs: number;
}

/**
 * INDEXER_CHAINS names the chains to follow; each needs RPC_URL_<chainId>, and its other settings default. No
 * chains: no indexer runs (events are then posted to POST /indexer/events by an indexer of the operator's own).
 */
export function chainIndexerConfig(env: NodeJS.ProcessEnv): ChainIndexerConfig {
  const ids = (env.INDEXER_CHAINS ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const chains = ids.map((raw): FollowedChain => {
    const chainId = Number(raw);
    if (!Number.isSafeInteger(chainId) || chainId < 1)
      throw new ConfigError(`INDEXER_CHAINS must list chain ids, got "${raw}"`);
    if (!rpcUrlOf(env, chainId)) throw new ConfigError(`INDEXER_CHAINS lists ${chainId}: set RPC_URL_${chainId}`);
    const fillEvent = env[`INDEXER_FILL_EVENT_${chainId}`] || DEFAULT_FILL_EVENT;
    const parsed = (() => {
      try {
        return parseAbiItem(fillEvent) as AbiEvent;
      } catch {
        return undefined;
      }
    })();
    if (parsed?.type !== 'event' || !parsed.inputs.some((i) => i.name === 'nonce' && i.type === 'uint256'))
      throw new ConfigError(
        `INDEXER_FILL_EVENT_${chainId} must be an event declaration with a "uint256 nonce" argument, got "${fillEvent}"`,
      );
    const filler = env[`INDEXER_FILL_CONTRACT_${chainId}`];
    const confirmations = int(env, `INDEXER_CONFIRMATIONS_${chainId}`, 12, 0, 1000);
    return {
      chainId,
      startBlock: int(env, `INDEXER_START_BLOCK_${chainId}`, 0, 0, Number.MAX_SAFE_INTEGER),
      confirmations,
      settlementConfirmations: Math.max(
        confirmations,
        int(env, `INDEXER_SETTLEMENT_CONFIRMATIONS_${chainId}`, 12, 1, 1000),
      ),
      blockRange: int(env, `INDEXER_BLOCK_RANGE_${chainId}`, 1000, 1, 100_000),
      compact: addressVar(env, `INDEXER_COMPACT_${chainId}`, compactAddress(env)),
      ...(filler ? { filler: addressVar(env, `INDEXER_FILL_CONTRACT_${chainId}`, filler as `0x${string}`) } : {}),
      fillEvent,
      permit2: addressVar(env, `INDEXER_PERMIT2_${chainId}`, PERMIT2_ADDRESS),
    };
  });
  return { chains, pollMs: int(env, 'INDEXER_POLL_MS', 2000, 10, 3_600_000) };
}
