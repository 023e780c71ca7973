import { loadChainRegistry } from '../../src/chains/registry';
import { DEFAULT_FEES } from '../../src/intents/market-defaults';
import { bpsOf, type Market } from '../../src/intents/pricing';
import { netUsd, planAlternatives, planIntent, planSeconds, rankPlans, rescale } from '../../src/intents/plan-finder';
import type { Source } from '../../src/ledger/ledger';
import type { DomainError } from '../../src/errors';

const registry = loadChainRegistry();
const market: Market = {
  priceUsd: (s) => ({ ETH: 3000, WETH: 3000, USDC: 1, BNB: 600 })[s],
  gasPriceWei: () => 1_000_000n,
  nativeSymbol: (id) => registry.chain(id)?.nativeCurrency.symbol,
};
const usdc = (chainId: number) => registry.tokenBySymbol(chainId, 'USDC')!;
const src = (chainId: number, available: bigint, funding: 'COMPACT' | 'PERMIT2' = 'COMPACT'): Source => ({
  chainId,
  token: usdc(chainId),
  lockTag: funding === 'COMPACT' ? '0x600000000000000000000001' : 'wallet',
  funding,
  available,
});
const plan = (sources: Source[], amount?: bigint, extra = {}) =>
  planIntent(
    {
      destinationChainId: 42161,
      requests: [{ token: usdc(42161), amount }],
      sources,
      destinationGasUnits: 0n,
      sponsor: { gas: false, bridge: false, protocol: false },
      ...extra,
    },
    registry,
    DEFAULT_FEES,
    market,
  );

test('same-chain funds come first and need no bridge', () => {
  const p = plan([src(8453, 10_000_000n), src(42161, 10_000_000n)], 1_000_000n);
  expect(p.spends.map((s) => s.source.chainId)).toEqual([42161]);
  expect(p.layers.get(42161)).toBe('SAME_CHAIN');
});

test('resource locks before wallet funds; wallet funds (Permit2) when locks do not cover it', () => {
  expect(plan([src(8453, 10_000_000n, 'PERMIT2'), src(10, 10_000_000n)], 1_000_000n).funding).toBe('COMPACT');
  const wallet = plan([src(8453, 10_000_000n, 'PERMIT2'), src(10, 500_000n)], 1_000_000n);
  expect(wallet.funding).toBe('PERMIT2');
});

test('several origin chains when one is not enough; spent covers target plus fee', () => {
  const p = plan([src(8453, 600_000n), src(10, 600_000n)], 1_000_000n);
  expect(new Set(p.spends.map((s) => s.source.chainId))).toEqual(new Set([8453, 10]));
  expect(p.received[0].spent).toBeGreaterThanOrEqual(p.received[0].target + p.received[0].fee);
});

test('max-out: an unset amount spends everything and delivers it minus fees', () => {
  const p = plan([src(8453, 2_000_000n)], undefined);
  expect(p.received[0].spent).toBe(2_000_000n);
  expect(p.received[0].target).toBe(2_000_000n - p.received[0].fee);
});

test('errors carry the messages the client maps', () => {
  expect(() => plan([src(8453, 100n)], 1_000_000n)).toThrow('Insufficient balance');
  expect(() => plan([src(8453, 10_000_000n)], 1_000_000n, { allowedLayers: ['OFT'] })).toThrow('No Path Found');
  expect(() =>
    planIntent(
      {
        destinationChainId: 42161,
        requests: [{ token: usdc(42161) }, { token: registry.tokenBySymbol(42161, 'WETH')! }],
        sources: [],
        destinationGasUnits: 0n,
        sponsor: { gas: false, bridge: false, protocol: false },
      },
      registry,
      DEFAULT_FEES,
      market,
    ),
  ).toThrow('Only one target token amount can be unset');
});

test('decimals differ across chains for one asset (BSC USDC has 18)', () => {
  expect(rescale(1_000_000n, 6, 18, true)).toBe(10n ** 18n);
  expect(rescale(10n ** 18n + 1n, 18, 6, true)).toBe(1_000_001n);
  expect(rescale(10n ** 18n + 1n, 18, 6, false)).toBe(1_000_000n);
  const p = plan([src(56, 5n * 10n ** 18n)], 1_000_000n);
  expect(p.spends[0].amount % 10n ** 12n).toBe(0n);
});

test('every requested token pays the percentage fees on its own amount, whatever the order of the requests', () => {
  const weth = (chainId: number) => registry.tokenBySymbol(chainId, 'WETH')!;
  const sources: Source[] = [
    src(8453, 10_000_000n),
    {
      chainId: 8453,
      token: weth(8453),
      lockTag: '0x600000000000000000000001',
      funding: 'COMPACT',
      available: 200n * 10n ** 18n,
    },
  ];
  const both = (first: 'USDC' | 'WETH') => {
    const requests = [
      { token: usdc(42161), amount: 1n },
      { token: weth(42161), amount: 100n * 10n ** 18n },
    ];
    return planIntent(
      {
        destinationChainId: 42161,
        requests: first === 'USDC' ? requests : requests.reverse(),
        sources,
        destinationGasUnits: 0n,
        sponsor: { gas: false, bridge: false, protocol: false },
      },
      registry,
      DEFAULT_FEES,
      market,
    );
  };
  const wethFee = (p: ReturnType<typeof both>) => p.received.find((r) => r.token.symbol === 'WETH')!.fee;
  const usdcFirst = both('USDC');
  // At least the protocol's 3 bps of 100 WETH, though USDC (1 unit) is the fee token that pays gas.
  expect(wethFee(usdcFirst)).toBeGreaterThanOrEqual(bpsOf(100n * 10n ** 18n, DEFAULT_FEES.protocolBps));
  expect(wethFee(both('WETH'))).toBeGreaterThanOrEqual(bpsOf(100n * 10n ** 18n, DEFAULT_FEES.protocolBps));
  expect(usdcFirst.received.find((r) => r.token.symbol === 'WETH')!.spent).toBeGreaterThanOrEqual(
    100n * 10n ** 18n + wethFee(usdcFirst),
  );
  expect(usdcFirst.cost.protocolFeeUsd).toBeGreaterThan(1); // 3 bps of 100 WETH at 3000 USD is 90 USD
});

const alternatives = (sources: Source[], amount?: bigint, extra = {}) =>
  planAlternatives(
    {
      destinationChainId: 42161,
      requests: [{ token: usdc(42161), amount }],
      sources,
      destinationGasUnits: 0n,
      sponsor: { gas: false, bridge: false, protocol: false },
      ...extra,
    },
    registry,
    DEFAULT_FEES,
    market,
  );
const signature = (p: ReturnType<typeof plan>) => `${p.funding}:${[...p.layers.values()].join(',')}`;

test("alternatives: each funding method, each over its cheapest layer and one other; the first is planIntent's", () => {
  const sources = [src(8453, 10_000_000n), src(8453, 10_000_000n, 'PERMIT2')];
  const plans = alternatives(sources, 1_000_000n);
  expect(plans.map(signature)).toEqual(['COMPACT:ACROSS', 'COMPACT:RELAY', 'PERMIT2:ACROSS', 'PERMIT2:RELAY']);
  expect(signature(plans[0])).toBe(signature(plan(sources, 1_000_000n)));
  // A caller's layer list bounds the alternatives too; same-chain funds have no other layer.
  expect(alternatives(sources, 1_000_000n, { allowedLayers: ['ACROSS'] }).map(signature)).toEqual([
    'COMPACT:ACROSS',
    'PERMIT2:ACROSS',
  ]);
  expect(alternatives([src(42161, 10_000_000n)], 1_000_000n).map(signature)).toEqual(['COMPACT:SAME_CHAIN']);
});

test('ranking: the most kept net of fees first, then the fastest', () => {
  const plans = alternatives([src(8453, 10_000_000n), src(8453, 10_000_000n, 'PERMIT2')], 1_000_000n);
  const ranked = rankPlans([...plans].reverse(), market);
  for (let i = 1; i < ranked.length; i++) {
    const [a, b] = [ranked[i - 1], ranked[i]];
    expect(
      netUsd(a, market) > netUsd(b, market) ||
        (netUsd(a, market) === netUsd(b, market) && planSeconds(a) <= planSeconds(b)),
    ).toBe(true);
  }
  expect([...ranked[0].layers.values()]).toEqual(['ACROSS']); // cheaper than RELAY at these fees
  expect(netUsd(ranked[0], market)).toBeLessThan(0); // fees are paid on top of the amount
});

test("refusals carry the current version's codes", () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as DomainError).code;
    }
  };
  expect(code(() => alternatives([src(8453, 100n)], 1_000_000n))).toBe('INSUFFICIENT_BALANCE');
  expect(code(() => alternatives([src(8453, 10_000_000n)], 1_000_000n, { allowedLayers: ['OFT'] }))).toBe('NO_ROUTE');
  expect(code(() => alternatives([], undefined, { requests: [] }))).toBe('VALIDATION_ERROR');
});
