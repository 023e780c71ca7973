/**
 * The cost model, pure: gas for each origin claim and the destination fill priced with per-chain gas prices and
 * native-token prices, per-settlement-layer fees (bps of the amount plus a fixed USD part), and a protocol fee.
 * USD figures are floats (they are estimates for display); every token amount is an exact bigint.
 */
export interface FeeSchedule {
  originClaimGas: bigint;
  destinationFillGas: bigint;
  protocolBps: number;
  layers: Record<string, { bps: number; fixedUsd: number }>;
}

export interface Market {
  priceUsd(symbol: string): number | undefined;
  gasPriceWei(chainId: number): bigint | undefined;
  nativeSymbol(chainId: number): string | undefined;
}

export interface Sponsorship {
  gas: boolean;
  bridge: boolean;
  protocol: boolean;
}

export interface CostInput {
  destinationChainId: number;
  /** origin chain → settlement layer used from it */
  layers: Map<number, string>;
  destinationGasUnits: bigint;
  feeToken: { symbol: string; decimals: number };
  /** amount delivered on the destination, in fee-token units (bps fees apply to it) */
  amount: bigint;
  /** the other requested tokens: each pays the percentage fees on its own amount, in its own token */
  otherLegs?: { token: { symbol: string; decimals: number }; amount: bigint }[];
  sponsor: Sponsorship;
}

export interface Cost {
  originGasUsd: { chainId: number; gasUSD: number }[];
  destinationGasUsd: number;
  layerFeeUsd: number;
  protocolFeeUsd: number;
  totalUsd: number;
  /** what the user pays on top of the amount, in fee-token units */
  userFee: bigint;
  /** what the sponsor covers of the same fees, in fee-token units */
  sponsoredFee: bigint;
  /** fees the sponsor covers, in USD */
  sponsoredUsd: { relayer: number; protocol: number };
}

export class PricingError extends Error {}

/**
 * The USD prices the service accepts for a token (indexer `price` events, stored prices): inside them every fee
 * converts between USD and token units exactly (price × 10^18 is a safe bigint, never Infinity).
 */
export const PRICE_USD_BOUNDS = { min: 1e-12, max: 1e12 } as const;
export const priceInBounds = (usd: number): boolean =>
  Number.isFinite(usd) && usd >= PRICE_USD_BOUNDS.min && usd <= PRICE_USD_BOUNDS.max;

const MICRO = 1_000_000;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
export const bpsOf = (amount: bigint, bps: number) => ceilDiv(amount * BigInt(Math.round(bps * 100)), 1_000_000n);

export function gasUsd(units: bigint, chainId: number, market: Market): number {
  const native = market.nativeSymbol(chainId);
  const price = native ? market.priceUsd(native) : undefined;
  const gasPrice = market.gasPriceWei(chainId);
  if (price === undefined || gasPrice === undefined)
    throw new PricingError(`No gas or price data for chain ${chainId}`);
  return (Number(units * gasPrice) / 1e18) * price;
}

/** Prices are fixed-point with 18 decimals here, so a token worth a tiny fraction of a dollar still divides. */
const PRICE_SCALE = 10n ** 18n;

/** USD → token units, rounded up so the user never underpays a fee. */
export function usdToToken(usd: number, token: { symbol: string; decimals: number }, market: Market): bigint {
  const price = market.priceUsd(token.symbol);
  if (price === undefined || !priceInBounds(price)) throw new PricingError(`No price for ${token.symbol}`);
  if (!Number.isFinite(usd)) throw new PricingError(`Fee of ${usd} USD cannot be priced in ${token.symbol}`);
  if (usd <= 0) return 0n;
  const scaledPrice = BigInt(Math.round(price * 1e18));
  if (scaledPrice === 0n) throw new PricingError(`Price of ${token.symbol} too small to price fees in it`);
  return ceilDiv(
    BigInt(Math.ceil(usd * MICRO)) * 10n ** BigInt(token.decimals) * PRICE_SCALE,
    scaledPrice * BigInt(MICRO),
  );
}

export function tokenToUsd(amount: bigint, token: { symbol: string; decimals: number }, market: Market): number {
  return (Number(amount) / 10 ** token.decimals) * (market.priceUsd(token.symbol) ?? 0);
}

/**
 * The percentage fees of one leg (each settlement layer's bps and the protocol's), in that leg's token, and the part
 * the user pays. Every requested token pays them on its own amount, so the order of the requests changes nothing.
 */
export function percentageFees(
  amount: bigint,
  layers: Iterable<string>,
  schedule: FeeSchedule,
  sponsor: Sponsorship,
): { layer: bigint; protocol: bigint; user: bigint } {
  let layer = 0n;
  for (const l of new Set(layers)) layer += bpsOf(amount, schedule.layers[l]?.bps ?? 0);
  const protocol = bpsOf(amount, schedule.protocolBps);
  return { layer, protocol, user: (sponsor.bridge ? 0n : layer) + (sponsor.protocol ? 0n : protocol) };
}

/** Gas and the layers' fixed fees are charged once, in the first requested token (the fee token). */
export function computeCost(input: CostInput, schedule: FeeSchedule, market: Market): Cost {
  const originGasUsd = [...input.layers.keys()].map((chainId) => ({
    chainId,
    gasUSD: gasUsd(schedule.originClaimGas, chainId, market),
  }));
  const destinationGasUsd = gasUsd(
    schedule.destinationFillGas + input.destinationGasUnits,
    input.destinationChainId,
    market,
  );
  const gasTotal = originGasUsd.reduce((s, o) => s + o.gasUSD, 0) + destinationGasUsd;

  const layerFixedUsd = [...new Set(input.layers.values())].reduce(
    (sum, l) => sum + (schedule.layers[l]?.fixedUsd ?? 0),
    0,
  );
  const first = percentageFees(input.amount, input.layers.values(), schedule, input.sponsor);
  let layerFeeUsd = tokenToUsd(first.layer, input.feeToken, market) + layerFixedUsd;
  let protocolFeeUsd = tokenToUsd(first.protocol, input.feeToken, market);
  for (const leg of input.otherLegs ?? []) {
    const fees = percentageFees(leg.amount, input.layers.values(), schedule, input.sponsor);
    layerFeeUsd += tokenToUsd(fees.layer, leg.token, market);
    protocolFeeUsd += tokenToUsd(fees.protocol, leg.token, market);
  }

  const gasFee = usdToToken(gasTotal, input.feeToken, market);
  const layerFixedFee = usdToToken(layerFixedUsd, input.feeToken, market);
  const userFee = (input.sponsor.gas ? 0n : gasFee) + (input.sponsor.bridge ? 0n : layerFixedFee) + first.user;
  return {
    originGasUsd,
    destinationGasUsd,
    layerFeeUsd,
    protocolFeeUsd,
    totalUsd: gasTotal + layerFeeUsd + protocolFeeUsd,
    userFee,
    sponsoredFee: gasFee + layerFixedFee + first.layer + first.protocol - userFee,
    sponsoredUsd: {
      relayer: (input.sponsor.gas ? gasTotal : 0) + (input.sponsor.bridge ? layerFeeUsd : 0),
      protocol: input.sponsor.protocol ? protocolFeeUsd : 0,
    },
  };
}
