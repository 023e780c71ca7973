import Ajv from 'ajv';
import fc from 'fast-check';
import type { EntityManager } from 'typeorm';
import { loadChainRegistry, type TokenInfo } from '../../src/chains/registry';
import { eventSchemas } from '../../src/indexer/schemas';
import { loadMarket } from '../../src/intents/market';
import { DEFAULT_FEES, DEFAULT_PRICES_USD } from '../../src/intents/market-defaults';
import { buildIntentOp, type IntentInput } from '../../src/intents/quote';
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

describe('21.9 deadlines and prices are bounded', () => {
  const LOCK_TAG = '0x600000000000000000000001'; // reset period index 6: seven days and one hour
  const RESET = 608_400;
  const usdcAt = (chainId: number) => token(chainId, 'USDC')!;
  const planFor = (funding: 'COMPACT' | 'PERMIT2') => planAlternatives({
    destinationChainId: DESTINATION, requests: [{ token: usdcAt(DESTINATION), amount: 1_000_000n }], destinationGasUnits: 0n, sponsor: { gas: false, bridge: false, protocol: false },
    sources: [{ chainId: 8453, token: usdcAt(8453), funding, lockTag: funding === 'COMPACT' ? LOCK_TAG : 'wallet', available: 10_000_000n }],
  }, registry, DEFAULT_FEES, market)[0];
  const plans = { COMPACT: planFor('COMPACT'), PERMIT2: planFor('PERMIT2') };
  const now = 1_800_000_000;

  test('21.9 customDeadline: expires >= fillDeadline + grace, within the lock reset period, never a deadline in the past or absurdly far', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('COMPACT' as const, 'PERMIT2' as const),
        fc.option(fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: now - 10, max: now + 2 * RESET })), { nil: undefined }),
        fc.record({ fillWindowSeconds: fc.integer({ min: 1, max: 86_400 }), claimWindowSeconds: fc.integer({ min: 1, max: 2_592_000 }), fillGraceSeconds: fc.integer({ min: 0, max: 3600 }) }),
        (funding, customDeadline, windows) => {
          const config = { ...windows, quoteTtlSeconds: 300, compactSigningContract: '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f' as const, arbiter: '0x000000000000000000000000000000000000a11c' as const };
          const input: IntentInput = { destinationChainId: DESTINATION, tokenRequests: [], account: { address: '0x000000000000000000000000000000000000b0b0', accountType: 'EOA', setupOps: [] }, destinationExecutions: [], options: { customDeadline } };
          let built;
          try {
            built = buildIntentOp({ input, plan: plans[funding], nonce: 1n, now, lockTag: LOCK_TAG, config, registry, market: { tokenPrices: {}, gasPrices: {} } });
          } catch (e) {
            if (e instanceof RouteError && e.code === 'VALIDATION_ERROR') return;
            throw e;
          }
          const expires = Number(built.op.expires);
          expect(built.fillDeadline).toBeGreaterThan(now);
          expect(built.fillDeadline).toBeLessThanOrEqual(now + 2_592_000);
          expect(expires).toBeGreaterThanOrEqual(built.fillDeadline + windows.fillGraceSeconds);
          if (funding === 'COMPACT') expect(expires).toBeLessThanOrEqual(now + RESET);
          // Every deadline is a time the lifecycle can wait for (Permit2's deadline is `expires`).
          expect(new Date(expires * 1000).getTime()).toBe(expires * 1000);
          if (customDeadline !== undefined) expect(built.fillDeadline).toBe(customDeadline);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('21.9 price events: a huge, tiny or non-finite usd is refused at ingestion', () => {
    const validate = new Ajv({ discriminator: true, strict: false }).compile(eventSchemas.price);
    const price = (usd: number) => validate({ id: 'p', type: 'price', symbol: 'ETH', usd });
    expect([1e300, 1e13, 1e-300, 0, -1, Infinity, NaN].map(price)).toEqual([false, false, false, false, false, false, false]);
    expect([3000, 1e-9, 1e12].map(price)).toEqual([true, true, true]);
  });

  test('21.9 prices: a stored price out of bounds (recorded before they were enforced) is ignored', async () => {
    const stored = { connection: {}, query: async () => [{ prices: { ETH: '1e300', USDC: '1e-300', WETH: '2500' }, gas: {} }] } as unknown as EntityManager;
    const loaded = await loadMarket(stored, registry, [DESTINATION], {});
    expect([loaded.priceUsd('ETH'), loaded.priceUsd('USDC'), loaded.priceUsd('WETH')]).toEqual([DEFAULT_PRICES_USD.ETH, DEFAULT_PRICES_USD.USDC, 2500]);
  });

  test('21.9 prices: any market price yields a route or a refusal, never a RangeError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: false }), fc.constantFrom(1e300, 1e-300, Infinity, 0)), fc.constantFrom('ETH', 'USDC'), (usd, symbol) => {
        const wild: Market = { ...market, priceUsd: (s) => (s === symbol ? usd : PRICES[s]) };
        try {
          const [p] = planAlternatives({ ...planInput(), sources: [{ chainId: 8453, token: usdcAt(8453), funding: 'COMPACT', lockTag: LOCK_TAG, available: 10n ** 12n }] }, registry, DEFAULT_FEES, wild);
          expect(p.received[0].target).toBe(1_000_000n);
        } catch (e) {
          if (!(e instanceof RouteError)) throw e;
        }
      }),
      { numRuns: 500 },
    );
  });
  const planInput = () => ({ destinationChainId: DESTINATION, requests: [{ token: usdcAt(DESTINATION), amount: 1_000_000n }], destinationGasUnits: 0n, sources: [] as Source[], sponsor: { gas: false, bridge: false, protocol: false } });
});
