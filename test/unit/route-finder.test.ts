import { loadChainRegistry } from '../../src/chains/registry';
import { DEFAULT_FEES } from '../../src/intents/market-defaults';
import type { Market } from '../../src/intents/pricing';
import { planIntent, rescale, Source } from '../../src/intents/route-finder';

const registry = loadChainRegistry();
const market: Market = { priceUsd: (s) => ({ ETH: 3000, USDC: 1, BNB: 600 })[s], gasPriceWei: () => 1_000_000n, nativeSymbol: (id) => registry.chain(id)?.nativeCurrency.symbol };
const usdc = (chainId: number) => registry.tokenBySymbol(chainId, 'USDC')!;
const src = (chainId: number, available: bigint, funding: 'COMPACT' | 'PERMIT2' = 'COMPACT'): Source => ({ chainId, token: usdc(chainId), lockTag: funding === 'COMPACT' ? '0x600000000000000000000001' : 'wallet', funding, available });
const plan = (sources: Source[], amount?: bigint, extra = {}) =>
  planIntent({ destinationChainId: 42161, requests: [{ token: usdc(42161), amount }], sources, destinationGasUnits: 0n, sponsor: { gas: false, bridge: false, protocol: false }, ...extra }, registry, DEFAULT_FEES, market);

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
  expect(() => planIntent({ destinationChainId: 42161, requests: [{ token: usdc(42161) }, { token: registry.tokenBySymbol(42161, 'WETH')! }], sources: [], destinationGasUnits: 0n, sponsor: { gas: false, bridge: false, protocol: false } }, registry, DEFAULT_FEES, market)).toThrow('Only one target token amount can be unset');
});

test('decimals differ across chains for one asset (BSC USDC has 18)', () => {
  expect(rescale(1_000_000n, 6, 18, true)).toBe(10n ** 18n);
  expect(rescale(10n ** 18n + 1n, 18, 6, true)).toBe(1_000_001n);
  expect(rescale(10n ** 18n + 1n, 18, 6, false)).toBe(1_000_000n);
  const p = plan([src(56, 5n * 10n ** 18n)], 1_000_000n);
  expect(p.spends[0].amount % 10n ** 12n).toBe(0n);
});
