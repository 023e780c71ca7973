import type { FeeSchedule } from './pricing';

/**
 * Defaults used until indexers report `price` and `gas` events (or an RPC URL gives live gas prices). They are
 * deliberately conservative round figures, not live data.
 */
export const DEFAULT_PRICES_USD: Record<string, number> = {
  ETH: 3000,
  WETH: 3000,
  USDC: 1,
  USDT: 1,
  USDT0: 1,
  USDG: 1,
  MockUSD: 1,
  ensUSDC: 1,
  POL: 0.25,
  BNB: 600,
  XDAI: 1,
  S: 0.5,
  XPL: 0.3,
  HYPE: 30,
  MON: 1,
  WMON: 1,
  AVAX: 25,
  WAVAX: 25,
  OKB: 45,
  WOKB: 45,
};

/** Wei per gas: L1 and its testnet pricier, L2s cheap. */
export const DEFAULT_GAS_PRICE_WEI: Record<number, bigint> = {
  1: 10_000_000_000n,
  11155111: 10_000_000_000n,
  56: 1_000_000_000n,
  137: 50_000_000_000n,
};
export const FALLBACK_GAS_PRICE_WEI = 10_000_000n;

export const DEFAULT_FEES: FeeSchedule = {
  originClaimGas: 150_000n,
  destinationFillGas: 200_000n,
  protocolBps: 3,
  layers: {
    SAME_CHAIN: { bps: 0, fixedUsd: 0 },
    ACROSS: { bps: 4, fixedUsd: 0.05 },
    RELAY: { bps: 5, fixedUsd: 0.05 },
    ECO: { bps: 5, fixedUsd: 0.1 },
    CCTP: { bps: 0, fixedUsd: 0.2 },
    OFT: { bps: 6, fixedUsd: 0.1 },
    LZ: { bps: 6, fixedUsd: 0.1 },
    NEAR: { bps: 8, fixedUsd: 0.1 },
    RHINO: { bps: 8, fixedUsd: 0.1 },
  },
};

/** Settlement layers a plan may bridge with, cheapest first at equal availability. */
export const BRIDGE_LAYERS = ['ACROSS', 'RELAY', 'CCTP', 'ECO', 'OFT', 'LZ', 'NEAR', 'RHINO'] as const;

/** Typical seconds from submit to fill per settlement layer: ranks plans of equal value (faster first). */
export const LAYER_SECONDS: Record<string, number> = {
  SAME_CHAIN: 5,
  INTENT_EXECUTOR: 10,
  RELAY: 15,
  ACROSS: 20,
  ECO: 30,
  CCTP: 60,
  OFT: 60,
  LZ: 60,
  NEAR: 90,
  RHINO: 90,
};
