import fc from 'fast-check';
import { loadChainRegistry, type TokenInfo } from '../../src/chains/registry';
import { DEFAULT_FEES } from '../../src/intents/market-defaults';
import type { Market } from '../../src/intents/pricing';
import { planAlternatives, RouteError, type Plan, type Source } from '../../src/intents/route-finder';

const registry = loadChainRegistry();
const PRICES: Record<string, number> = { ETH: 3000, WETH: 3000, USDC: 1, USDT: 1, USDT0: 1, BNB: 600, POL: 0.5 };
const market: Market = { priceUsd: (s) => PRICES[s], gasPriceWei: () => 1_000_000n, nativeSymbol: (id) => registry.chain(id)?.nativeCurrency.symbol };

const DESTINATION = 42161;
const SYMBOLS = ['USDC', 'WETH', 'USDT0', 'ETH'];
// Base, Optimism, Arbitrum, BSC (USDC with 18 decimals), Ethereum.
const ORIGINS = [8453, 10, 42161, 56, 1];
const token = (chainId: number, symbol: string): TokenInfo | undefined => registry.tokenBySymbol(chainId, symbol);

const request = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  amount: fc.option(fc.bigInt({ min: 1n, max: 10n ** 21n }), { nil: undefined, freq: 5 }),
});
const source = fc.record({
  chainId: fc.constantFrom(...ORIGINS),
  symbol: fc.constantFrom(...SYMBOLS, 'USDT', 'BNB'),
  funding: fc.constantFrom('COMPACT' as const, 'PERMIT2' as const),
  available: fc.bigInt({ min: 0n, max: 10n ** 22n }),
});

/** What a plan must never do: deliver plus charge more of an asset than it takes, or take more than a source holds. */
function violations(plan: Plan): string[] {
  const found: string[] = [];
  const taken = new Map<Source, bigint>();
  for (const s of plan.spends) taken.set(s.source, (taken.get(s.source) ?? 0n) + s.amount);
  for (const [s, amount] of taken) if (amount > s.available) found.push(`spends ${amount} of ${s.available} ${s.token.symbol}@${s.chainId}`);
  // Exact comparison at 36 decimals: every token's amount scales up without rounding.
  const at36 = (amount: bigint, decimals: number) => amount * 10n ** BigInt(36 - decimals);
  for (const symbol of new Set(plan.received.map((r) => r.token.symbol))) {
    const promised = plan.received.filter((r) => r.token.symbol === symbol).reduce((sum, r) => sum + at36(r.target + r.fee, r.token.decimals), 0n);
    const spent = plan.spends.filter((s) => s.source.token.symbol === symbol).reduce((sum, s) => sum + at36(s.amount, s.source.token.decimals), 0n);
    if (promised > spent) found.push(`${symbol}: promises ${promised} > spends ${spent} (36 decimals)`);
  }
  return found;
}

test('21.1 property: no plan ever promises more of an asset than it spends, or spends more than a source holds', () => {
  fc.assert(
    fc.property(
      fc.array(request, { minLength: 1, maxLength: 4 }),
      fc.array(source, { maxLength: 8 }),
      fc.record({ gas: fc.boolean(), bridge: fc.boolean(), protocol: fc.boolean() }),
      (requests, sources, sponsor) => {
        const input = {
          destinationChainId: DESTINATION,
          requests: requests.map((r) => ({ token: token(DESTINATION, r.symbol)!, amount: r.amount })),
          sources: sources.flatMap((s): Source[] => {
            const t = token(s.chainId, s.symbol);
            return t ? [{ chainId: s.chainId, token: t, funding: s.funding, lockTag: s.funding === 'COMPACT' ? '0x600000000000000000000001' : 'wallet', available: s.available }] : [];
          }),
          destinationGasUnits: 0n,
          sponsor,
        };
        let plans: Plan[];
        try {
          plans = planAlternatives(input, registry, DEFAULT_FEES, market);
        } catch (e) {
          if (e instanceof RouteError) return; // refused, nothing promised
          throw e;
        }
        for (const plan of plans) expect(violations(plan)).toEqual([]);
      },
    ),
    { numRuns: 3000 },
  );
});

test('21.1 duplicate assets: the same asset requested twice is refused, not promised twice', () => {
  const usdc = token(DESTINATION, 'USDC')!;
  const sources: Source[] = [{ chainId: 8453, token: token(8453, 'USDC')!, funding: 'COMPACT', lockTag: '0x600000000000000000000001', available: 150_000_000n }];
  const input = { destinationChainId: DESTINATION, requests: [{ token: usdc, amount: 100_000_000n }, { token: usdc, amount: 100_000_000n }], sources, destinationGasUnits: 0n, sponsor: { gas: false, bridge: false, protocol: false } };
  expect(() => planAlternatives(input, registry, DEFAULT_FEES, market)).toThrow(new RouteError('USDC is requested more than once: request each asset once, with the total amount', 'VALIDATION_ERROR'));
});
