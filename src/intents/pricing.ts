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

export interface Sponsorship { gas: boolean; bridge: boolean; protocol: boolean }

export interface CostInput {
  destinationChainId: number;
  /** origin chain → settlement layer used from it */
  layers: Map<number, string>;
  destinationGasUnits: bigint;
  feeToken: { symbol: string; decimals: number };
  /** amount delivered on the destination, in fee-token units (bps fees apply to it) */
  amount: bigint;
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
  /** fees the sponsor covers, in USD */
  sponsoredUsd: { relayer: number; protocol: number };
}

export class PricingError extends Error {}

const MICRO = 1_000_000;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
export const bpsOf = (amount: bigint, bps: number) => ceilDiv(amount * BigInt(Math.round(bps * 100)), 1_000_000n);

export function gasUsd(units: bigint, chainId: number, market: Market): number {
  const native = market.nativeSymbol(chainId);
  const price = native ? market.priceUsd(native) : undefined;
  const gasPrice = market.gasPriceWei(chainId);
  if (price === undefined || gasPrice === undefined) throw new PricingError(`No gas or price data for chain ${chainId}`);
  return (Number(units * gasPrice) / 1e18) * price;
}

/** USD → token units, rounded up so the user never underpays a fee. */
export function usdToToken(usd: number, token: { symbol: string; decimals: number }, market: Market): bigint {
  const price = market.priceUsd(token.symbol);
  if (!price) throw new PricingError(`No price for ${token.symbol}`);
  if (usd <= 0) return 0n;
  return ceilDiv(BigInt(Math.ceil(usd * MICRO)) * 10n ** BigInt(token.decimals), BigInt(Math.round(price * MICRO)));
}

export function tokenToUsd(amount: bigint, token: { symbol: string; decimals: number }, market: Market): number {
  return (Number(amount) / 10 ** token.decimals) * (market.priceUsd(token.symbol) ?? 0);
}

export function computeCost(input: CostInput, schedule: FeeSchedule, market: Market): Cost {
  const originGasUsd = [...input.layers.keys()].map((chainId) => ({ chainId, gasUSD: gasUsd(schedule.originClaimGas, chainId, market) }));
  const destinationGasUsd = gasUsd(schedule.destinationFillGas + input.destinationGasUnits, input.destinationChainId, market);
  const gasTotal = originGasUsd.reduce((s, o) => s + o.gasUSD, 0) + destinationGasUsd;

  let layerBpsFee = 0n;
  let layerFixedUsd = 0;
  for (const layer of new Set(input.layers.values())) {
    const fee = schedule.layers[layer] ?? { bps: 0, fixedUsd: 0 };
    layerBpsFee += bpsOf(input.amount, fee.bps);
    layerFixedUsd += fee.fixedUsd;
  }
  const protocolFee = bpsOf(input.amount, schedule.protocolBps);
  const layerFeeUsd = tokenToUsd(layerBpsFee, input.feeToken, market) + layerFixedUsd;
  const protocolFeeUsd = tokenToUsd(protocolFee, input.feeToken, market);

  const userFee =
    (input.sponsor.gas ? 0n : usdToToken(gasTotal, input.feeToken, market)) +
    (input.sponsor.bridge ? 0n : layerBpsFee + usdToToken(layerFixedUsd, input.feeToken, market)) +
    (input.sponsor.protocol ? 0n : protocolFee);
  return {
    originGasUsd,
    destinationGasUsd,
    layerFeeUsd,
    protocolFeeUsd,
    totalUsd: gasTotal + layerFeeUsd + protocolFeeUsd,
    userFee,
    sponsoredUsd: {
      relayer: (input.sponsor.gas ? gasTotal : 0) + (input.sponsor.bridge ? layerFeeUsd : 0),
      protocol: input.sponsor.protocol ? protocolFeeUsd : 0,
    },
  };
}
