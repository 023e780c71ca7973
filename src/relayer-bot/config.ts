import { getAddress, parseUnits, type Hex } from 'viem';
import { ConfigError, int, privateKey } from '../env';

/** One chain the relayer fills on or claims on. */
export interface RelayerChain {
  chainId: number;
  rpcUrl: string;
  /** the settlement contract fills go through (`fillTokenOut`); none: the relayer only claims on this chain */
  filler?: Hex;
  /** what the relayer fills with here, approved to the filler at start */
  tokens: Hex[];
}

/**
 * `npm run relayer`'s settings (docs/relayers.md, docs/configuration.md: the relayer's `RELAYER_*`). The service's
 * Temporal settings (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE) say which cluster its workflows run in.
 */
export interface RelayerBotConfig {
  apiUrl: string;
  relayerKey: string;
  privateKey: Hex;
  chains: RelayerChain[];
  /** native-token wei one whole token is worth, per symbol (the fill rule's prices) */
  prices: Record<string, bigint>;
  taskQueue: string;
  metricsPort: number;
  stepSeconds: number;
  retrySeconds: number;
  claimGas: bigint;
  /** how far back a fill or a claim already mined is looked for */
  lookbackBlocks: bigint;
}

/** `USDC=0.0003,WETH=1`: native tokens (ETH) per whole token. */
function prices(raw: string): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const part of raw.split(',').filter(Boolean)) {
    const m = /^\s*([A-Za-z0-9.]+)=(\d{1,12}(\.\d{1,18})?)\s*$/.exec(part);
    if (!m) throw new ConfigError(`RELAYER_PRICES must be SYMBOL=price pairs (native tokens per token), got "${raw}"`);
    out[m[1]] = parseUnits(m[2], 18);
  }
  return out;
}

const addresses = (name: string, raw: string | undefined): Hex[] =>
  (raw ?? '')
    .split(',')
    .filter((a) => a.trim())
    .map((a) => {
      try {
        return getAddress(a.trim());
      } catch {
        throw new ConfigError(`${name} must list addresses, got "${raw}"`);
      }
    });

/** The chains named by RPC_URL_<chainId>, each with its RELAYER_FILLER_<chainId> and RELAYER_TOKENS_<chainId>. */
function chains(env: NodeJS.ProcessEnv): RelayerChain[] {
  return Object.keys(env)
    .map((k) => /^RPC_URL_(\d+)$/.exec(k)?.[1])
    .filter((id): id is string => !!id && !!env[`RPC_URL_${id}`])
    .map((id) => {
      const chainId = Number(id);
      const [filler] = addresses(`RELAYER_FILLER_${chainId}`, env[`RELAYER_FILLER_${chainId}`]);
      return {
        chainId,
        rpcUrl: env[`RPC_URL_${chainId}`]!,
        filler,
        tokens: addresses(`RELAYER_TOKENS_${chainId}`, env[`RELAYER_TOKENS_${chainId}`]),
      };
    });
}

export function relayerBotConfig(env: NodeJS.ProcessEnv): RelayerBotConfig {
  const key = privateKey(env, 'RELAYER_PRIVATE_KEY');
  if (!key) throw new ConfigError('RELAYER_PRIVATE_KEY is required: the key the relayer fills and claims with');
  if (!env.RELAYER_KEY) throw new ConfigError('RELAYER_KEY is required: npm run cli -- relayers add <name> issues one');
  return {
    apiUrl: (env.RELAYER_API_URL || `http://127.0.0.1:${int(env, 'PORT', 3000)}`).replace(/\/$/, ''),
    relayerKey: env.RELAYER_KEY,
    privateKey: key,
    chains: chains(env),
    prices: prices(env.RELAYER_PRICES ?? 'USDC=0.0003,USDT=0.0003,DAI=0.0003,WETH=1,ETH=1'),
    taskQueue: env.RELAYER_TASK_QUEUE || `${env.TEMPORAL_TASK_QUEUE || 'orchestrator'}-relayer`,
    metricsPort: int(env, 'RELAYER_METRICS_PORT', 9464),
    stepSeconds: int(env, 'RELAYER_STEP_TIMEOUT_SECONDS', 30, 1, 3600),
    retrySeconds: int(env, 'RELAYER_RETRY_SECONDS', 1, 1, 600),
    claimGas: BigInt(int(env, 'RELAYER_CLAIM_GAS', 250_000, 21_000, 30_000_000)),
    lookbackBlocks: BigInt(int(env, 'RELAYER_LOOKBACK_BLOCKS', 50_000, 1, 10_000_000)),
  };
}
