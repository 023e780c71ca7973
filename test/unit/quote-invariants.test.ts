import Ajv from 'ajv';
import fc from 'fast-check';
import type { EntityManager } from 'typeorm';
import { loadChainRegistry, type TokenInfo } from '../../src/chains/registry';
import { eventSchemas } from '../../src/ingestion/schemas';
import { loadMarket } from '../../src/intents/market';
import { DEFAULT_FEES, DEFAULT_PRICES_USD } from '../../src/intents/market-defaults';
import { buildIntentOp, MAX_CUSTOM_DEADLINE_SECONDS, type IntentInput } from '../../src/intents/quote';
import type { Market } from '../../src/intents/pricing';
import { DomainError } from '../../src/errors';
import { planAlternatives, rescale, type Plan } from '../../src/intents/plan-finder';
import type { Source } from '../../src/ledger/ledger';

const registry = loadChainRegistry();
const PRICES: Record<string, number> = { ETH: 3000, WETH: 3000, USDC: 1, USDT: 1, USDT0: 1, BNB: 600, POL: 0.5 };
const market: Market = {
  priceUsd: (s) => PRICES[s],
  gasPriceWei: () => 1_000_000n,
  nativeSymbol: (id) => registry.chain(id)?.nativeCurrency.symbol,
};

const DESTINATION = 42161;
const SYMBOLS = ['USDC', 'WETH', 'USDT0', 'ETH'];
// Base, Optimism, Arbitrum, BSC (USDC with 18 decimals), Ethereum.
const ORIGINS = [8453, 10, 42161, 56, 1];
const token = (chainId: number, symbol: string): TokenInfo | undefined => registry.tokenBySymbol(chainId, symbol);
const LOCK_TAG = '0x600000000000000000000001'; // reset period index 6: seven days and one hour

/** Any balance of a known token (many of no use to a case: other assets, too small, the other funding). */
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
  for (const [s, amount] of taken)
    if (amount > s.available) found.push(`spends ${amount} of ${s.available} ${s.token.symbol}@${s.chainId}`);
  // Exact comparison at 36 decimals: every token's amount scales up without rounding.
  const at36 = (amount: bigint, decimals: number) => amount * 10n ** BigInt(36 - decimals);
  for (const symbol of new Set(plan.received.map((r) => r.token.symbol))) {
    const promised = plan.received
      .filter((r) => r.token.symbol === symbol)
      .reduce((sum, r) => sum + at36(r.target + r.fee, r.token.decimals), 0n);
    const spent = plan.spends
      .filter((s) => s.source.token.symbol === symbol)
      .reduce((sum, s) => sum + at36(s.amount, s.source.token.decimals), 0n);
    if (promised > spent) found.push(`${symbol}: promises ${promised} > spends ${spent} (36 decimals)`);
  }
  return found;
}

/**
 * A case built to plan: distinct assets, at most one request without an amount (it takes the whole balance), and for
 * each a source of the asset, of the case's funding, holding the amount and some room for the fees: mostly ample
 * (up to 2% and 20 whole tokens over), sometimes too little (a refusal), so plans near the edge are tried too. Native
 * ETH moves only from resource locks, so a case that asks for it is funded by locks. Random sources ride along
 * (other assets and chains, the other funding), so a plan may also spend what it was not built around.
 */
const fundedRequest = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  amount: fc.bigInt({ min: 1n, max: 10n ** 21n }),
  origin: fc.nat(), // which of the chains that have the asset holds its source
  permille: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 20 }), weight: 4 }, fc.constant(0)), // room over the amount, in ‰ of it
  tenths: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 200 }), weight: 4 }, fc.constant(0)), // and in tenths of a whole token
});
const fundedCase = fc.record({
  requests: fc.uniqueArray(fundedRequest, { minLength: 1, maxLength: 4, selector: (r) => r.symbol }),
  unset: fc.nat({ max: 7 }), // the index of the request without an amount; none from 4 up
  funding: fc.constantFrom('COMPACT' as const, 'PERMIT2' as const),
  noise: fc.array(source, { maxLength: 6 }),
  sponsor: fc.record({ gas: fc.boolean(), bridge: fc.boolean(), protocol: fc.boolean() }),
});

test('21.1 property: no plan ever promises more of an asset than it spends, or spends more than a source holds', () => {
  const runs = 3000;
  let planned = 0;
  let plannedSeveral = 0;
  fc.assert(
    fc.property(fundedCase, ({ requests, unset, funding: chosen, noise, sponsor }) => {
      const funding = requests.some((r) => BigInt(token(DESTINATION, r.symbol)!.address) === 0n) ? 'COMPACT' : chosen;
      const covering = requests.map((r): Source => {
        const origins = ORIGINS.filter((c) => token(c, r.symbol));
        const chainId = origins[r.origin % origins.length];
        const t = token(chainId, r.symbol)!;
        const amount = rescale(r.amount, token(DESTINATION, r.symbol)!.decimals, t.decimals, true);
        const room = (amount * BigInt(r.permille)) / 1000n + (BigInt(r.tenths) * 10n ** BigInt(t.decimals)) / 10n;
        return {
          chainId,
          token: t,
          funding,
          lockTag: funding === 'COMPACT' ? LOCK_TAG : 'wallet',
          available: amount + room,
        };
      });
      const input = {
        destinationChainId: DESTINATION,
        requests: requests.map((r, i) => ({
          token: token(DESTINATION, r.symbol)!,
          amount: i === unset ? undefined : r.amount,
        })),
        sources: [
          ...covering,
          ...noise.flatMap((s): Source[] => {
            const t = token(s.chainId, s.symbol);
            return t
              ? [
                  {
                    chainId: s.chainId,
                    token: t,
                    funding: s.funding,
                    lockTag: s.funding === 'COMPACT' ? LOCK_TAG : 'wallet',
                    available: s.available,
                  },
                ]
              : [];
          }),
        ],
        destinationGasUnits: 0n,
        sponsor,
      };
      let plans: Plan[];
      try {
        plans = planAlternatives(input, registry, DEFAULT_FEES, market);
      } catch (e) {
        if (e instanceof DomainError) return; // refused, nothing promised (counted below: most cases must plan)
        throw e;
      }
      planned++;
      if (requests.length > 1) plannedSeveral++;
      for (const plan of plans) expect(violations(plan)).toEqual([]);
    }),
    { numRuns: runs },
  );
  // Most cases hold enough (about 85% plan): a planner that refused them would leave the property above unchecked.
  expect({ planned: planned >= 0.6 * runs, plannedSeveral: plannedSeveral >= 0.3 * runs }).toEqual({
    planned: true,
    plannedSeveral: true,
  });
});

test('21.1 duplicate assets: the same asset requested twice is refused, not promised twice', () => {
  const usdc = token(DESTINATION, 'USDC')!;
  const sources: Source[] = [
    { chainId: 8453, token: token(8453, 'USDC')!, funding: 'COMPACT', lockTag: LOCK_TAG, available: 150_000_000n },
  ];
  const input = {
    destinationChainId: DESTINATION,
    requests: [
      { token: usdc, amount: 100_000_000n },
      { token: usdc, amount: 100_000_000n },
    ],
    sources,
    destinationGasUnits: 0n,
    sponsor: { gas: false, bridge: false, protocol: false },
  };
  expect(() => planAlternatives(input, registry, DEFAULT_FEES, market)).toThrow(
    new DomainError(
      'VALIDATION_ERROR',
      'USDC is requested more than once: request each asset once, with the total amount',
    ),
  );
});

describe('21.9 deadlines and prices are bounded', () => {
  const RESET = 608_400;
  const usdcAt = (chainId: number) => token(chainId, 'USDC')!;
  const planFor = (funding: 'COMPACT' | 'PERMIT2') =>
    planAlternatives(
      {
        destinationChainId: DESTINATION,
        requests: [{ token: usdcAt(DESTINATION), amount: 1_000_000n }],
        destinationGasUnits: 0n,
        sponsor: { gas: false, bridge: false, protocol: false },
        sources: [
          {
            chainId: 8453,
            token: usdcAt(8453),
            funding,
            lockTag: funding === 'COMPACT' ? LOCK_TAG : 'wallet',
            available: 10_000_000n,
          },
        ],
      },
      registry,
      DEFAULT_FEES,
      market,
    )[0];
  const plans = { COMPACT: planFor('COMPACT'), PERMIT2: planFor('PERMIT2') };
  const now = 1_800_000_000;

  test('21.9 customDeadline: expires >= fillDeadline + grace, within the lock reset period, never a deadline in the past or absurdly far', () => {
    const runs = 2000;
    let builtCustom = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('COMPACT' as const, 'PERMIT2' as const),
        fc.option(
          fc.oneof(
            { arbitrary: fc.integer({ min: now + 1, max: now + RESET - 3600 }), weight: 6 }, // within every bound
            { arbitrary: fc.integer({ min: now - 10, max: now + 2 * RESET }), weight: 1 }, // around the bounds
            { arbitrary: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), weight: 1 }, // anywhere
          ),
          { nil: undefined },
        ),
        fc.record({
          fillWindowSeconds: fc.integer({ min: 1, max: 86_400 }),
          claimWindowSeconds: fc.integer({ min: 1, max: 2_592_000 }),
          fillGraceSeconds: fc.integer({ min: 0, max: 3600 }),
        }),
        (funding, customDeadline, windows) => {
          const config = {
            ...windows,
            quoteTtlSeconds: 300,
            compactSigningContract: '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f' as const,
            arbiter: '0x000000000000000000000000000000000000a11c' as const,
            arbiters: new Map(),
          };
          const input: IntentInput = {
            destinationChainId: DESTINATION,
            tokenRequests: [],
            account: { address: '0x000000000000000000000000000000000000b0b0', accountType: 'EOA', setupOps: [] },
            destinationExecutions: [],
            options: { customDeadline },
          };
          // The documented bounds: after now, at most 30 days ahead, and for locked funds a fill grace within the reset period.
          const inBounds =
            customDeadline === undefined ||
            (customDeadline > now &&
              customDeadline <= now + MAX_CUSTOM_DEADLINE_SECONDS &&
              (funding === 'PERMIT2' || customDeadline + windows.fillGraceSeconds <= now + RESET));
          let built;
          try {
            built = buildIntentOp({
              input,
              plan: plans[funding],
              nonce: 1n,
              now,
              lockTag: LOCK_TAG,
              config,
              registry,
              market: { tokenPrices: {}, gasPrices: {} },
            });
          } catch (e) {
            if (!(e instanceof DomainError && e.code === 'VALIDATION_ERROR')) throw e;
            expect({ customDeadline, refused: true, inBounds }).toEqual({
              customDeadline,
              refused: true,
              inBounds: false,
            });
            return;
          }
          if (customDeadline !== undefined) builtCustom++;
          const expires = Number(built.op.expires);
          expect(built.fillDeadline).toBeGreaterThan(now);
          expect(built.fillDeadline).toBeLessThanOrEqual(now + MAX_CUSTOM_DEADLINE_SECONDS);
          expect(expires).toBeGreaterThanOrEqual(built.fillDeadline + windows.fillGraceSeconds);
          if (funding === 'COMPACT') expect(expires).toBeLessThanOrEqual(now + RESET);
          // Every deadline is a time the lifecycle can wait for (Permit2's deadline is `expires`).
          expect(new Date(expires * 1000).getTime()).toBe(expires * 1000);
          if (customDeadline !== undefined) expect(built.fillDeadline).toBe(customDeadline);
        },
      ),
      { numRuns: runs },
    );
    // Most deadlines are drawn within the bounds: an op builder that refused them would leave the checks above unrun.
    expect(builtCustom).toBeGreaterThanOrEqual(0.5 * runs);
  });

  test('21.9 the fill grace window before the reset: a locked intent whose deadline leaves no grace is refused, one that leaves it is built', () => {
    const build = (customDeadline: number, fillGraceSeconds: number) =>
      buildIntentOp({
        input: {
          destinationChainId: DESTINATION,
          tokenRequests: [],
          account: { address: '0x000000000000000000000000000000000000b0b0', accountType: 'EOA', setupOps: [] },
          destinationExecutions: [],
          options: { customDeadline },
        },
        plan: plans.COMPACT,
        nonce: 1n,
        now,
        lockTag: LOCK_TAG,
        config: {
          fillWindowSeconds: 600,
          claimWindowSeconds: 600,
          fillGraceSeconds,
          quoteTtlSeconds: 300,
          compactSigningContract: '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f',
          arbiter: '0x000000000000000000000000000000000000a11c',
          arbiters: new Map(),
        },
        registry,
        market: { tokenPrices: {}, gasPrices: {} },
      });
    // The edge: a deadline exactly the grace before the reset is built, one second later is refused.
    const edge = build(now + RESET - 600, 600);
    expect(Number(edge.op.expires)).toBe(now + RESET);
    expect(() => build(now + RESET - 599, 600)).toThrow(/customDeadline must be at most/);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3600 }), fc.integer({ min: 0, max: 3599 }), (grace, into) => {
        // Inside (reset - grace, reset]: no claim could follow a fill at the grace's end.
        const inside = now + RESET - grace + 1 + (into % grace);
        expect(() => build(inside, grace)).toThrow(DomainError);
        const built = build(now + RESET - grace, grace);
        expect(Number(built.op.expires)).toBeGreaterThanOrEqual(built.fillDeadline + grace);
        expect(Number(built.op.expires)).toBeLessThanOrEqual(now + RESET);
      }),
      { numRuns: 500 },
    );
  });

  test('21.9 price events: a huge, tiny or non-finite usd is refused at ingestion', () => {
    const validate = new Ajv({ discriminator: true, strict: false }).compile(eventSchemas.price);
    const price = (usd: number) => validate({ id: 'p', type: 'price', symbol: 'ETH', usd });
    expect([1e300, 1e13, 1e-300, 0, -1, Infinity, NaN].map(price)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([3000, 1e-9, 1e12].map(price)).toEqual([true, true, true]);
  });

  test('21.9 prices: a stored price out of bounds (recorded before they were enforced) is ignored', async () => {
    const stored = {
      query: async () => [{ prices: { ETH: '1e300', USDC: '1e-300', WETH: '2500' }, gas: {} }],
    } as unknown as EntityManager;
    const loaded = await loadMarket(stored, registry, [DESTINATION], { client: () => undefined });
    expect([loaded.priceUsd('ETH'), loaded.priceUsd('USDC'), loaded.priceUsd('WETH')]).toEqual([
      DEFAULT_PRICES_USD.ETH,
      DEFAULT_PRICES_USD.USDC,
      2500,
    ]);
  });

  test('21.9 prices: any market price yields a route or a refusal, never a RangeError', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: false }), fc.constantFrom(1e300, 1e-300, Infinity, 0)),
        fc.constantFrom('ETH', 'USDC'),
        (usd, symbol) => {
          const wild: Market = { ...market, priceUsd: (s) => (s === symbol ? usd : PRICES[s]) };
          try {
            const [p] = planAlternatives(
              {
                ...planInput(),
                sources: [
                  { chainId: 8453, token: usdcAt(8453), funding: 'COMPACT', lockTag: LOCK_TAG, available: 10n ** 12n },
                ],
              },
              registry,
              DEFAULT_FEES,
              wild,
            );
            expect(p.received[0].target).toBe(1_000_000n);
          } catch (e) {
            if (!(e instanceof DomainError)) throw e;
          }
        },
      ),
      { numRuns: 500 },
    );
  });
  const planInput = () => ({
    destinationChainId: DESTINATION,
    requests: [{ token: usdcAt(DESTINATION), amount: 1_000_000n }],
    destinationGasUnits: 0n,
    sources: [] as Source[],
    sponsor: { gas: false, bridge: false, protocol: false },
  });
});
