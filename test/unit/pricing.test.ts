import { bpsOf, computeCost, FeeSchedule, Market, PricingError, usdToToken } from '../../src/intents/pricing';

const market: Market = {
  priceUsd: (s) => ({ ETH: 2000, USDC: 1 })[s],
  gasPriceWei: (id) => (id === 1 ? 10_000_000_000n : 1_000_000n),
  nativeSymbol: () => 'ETH',
};
const schedule: FeeSchedule = {
  originClaimGas: 100_000n,
  destinationFillGas: 200_000n,
  protocolBps: 10,
  layers: { ACROSS: { bps: 5, fixedUsd: 0.1 }, SAME_CHAIN: { bps: 0, fixedUsd: 0 } },
};
const usdc = { symbol: 'USDC', decimals: 6 };

test('bps and USD conversions round up in bigint', () => {
  expect(bpsOf(1_000_000n, 5)).toBe(500n);
  expect(bpsOf(1n, 5)).toBe(1n);
  expect(usdToToken(1.5, usdc, market)).toBe(1_500_000n);
  expect(usdToToken(0.0000001, usdc, market)).toBe(1n);
  expect(usdToToken(2000, { symbol: 'ETH', decimals: 18 }, market)).toBe(10n ** 18n);
});

test('gas per origin claim and destination fill, layer and protocol fees', () => {
  const cost = computeCost(
    {
      destinationChainId: 42161,
      layers: new Map([[1, 'ACROSS']]),
      destinationGasUnits: 100_000n,
      feeToken: usdc,
      amount: 100_000_000n,
      sponsor: { gas: false, bridge: false, protocol: false },
    },
    schedule,
    market,
  );
  // origin: 100k gas × 10 gwei × $2000 = $2; destination: 300k × 0.001 gwei × $2000 = $0.0006
  expect(cost.originGasUsd).toEqual([{ chainId: 1, gasUSD: 2 }]);
  expect(cost.destinationGasUsd).toBeCloseTo(0.0006, 10);
  // $2.0006 gas + 5 bps of 100 USDC (0.05) + $0.10 + 10 bps protocol (0.10)
  expect(cost.userFee).toBe(2_000_600n + 50_000n + 100_000n + 100_000n);
});

test('sponsor settings move fees off the user', () => {
  const base = {
    destinationChainId: 42161,
    layers: new Map([[1, 'ACROSS']]),
    destinationGasUnits: 0n,
    feeToken: usdc,
    amount: 100_000_000n,
  };
  const sponsored = computeCost({ ...base, sponsor: { gas: true, bridge: true, protocol: true } }, schedule, market);
  expect(sponsored.userFee).toBe(0n);
  expect(sponsored.sponsoredUsd.relayer).toBeGreaterThan(2);
  const gasOnly = computeCost({ ...base, sponsor: { gas: true, bridge: false, protocol: false } }, schedule, market);
  expect(gasOnly.userFee).toBe(50_000n + 100_000n + 100_000n);
});

test('a tiny token price still converts (no division by zero), and a zero-scaled one is a pricing error', () => {
  const tiny = { priceUsd: () => 1e-9, gasPriceWei: () => 1n, nativeSymbol: () => 'ETH' };
  expect(usdToToken(1, { symbol: 'TINY', decimals: 18 }, tiny)).toBe(10n ** 27n);
  expect(() => usdToToken(1, { symbol: 'DUST', decimals: 18 }, { ...tiny, priceUsd: () => 1e-30 })).toThrow(
    PricingError,
  );
});
