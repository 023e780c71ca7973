import { DomainError } from '../errors';
import { SETTLEMENT_LAYERS, type ChainRegistry, type TokenInfo } from '../chains/registry';
import type { Source } from '../ledger/ledger';
import { BRIDGE_LAYERS, LAYER_SECONDS } from './market-defaults';
import {
  computeCost,
  Cost,
  FeeSchedule,
  Market,
  percentageFees,
  PricingError,
  Sponsorship,
  tokenToUsd,
} from './pricing';

export interface TokenRequest {
  token: TokenInfo;
  amount?: bigint;
}

export interface PlanInput {
  destinationChainId: number;
  requests: TokenRequest[];
  sources: Source[];
  allowedLayers?: string[];
  destinationGasUnits: bigint;
  sponsor: Sponsorship;
}

export interface Spend {
  source: Source;
  amount: bigint;
}
/** `fee` is what the user pays on top of `target`; `sponsored` what the sponsor covers of the fees (same token). */
export interface PlannedRequest {
  token: TokenInfo;
  target: bigint;
  fee: bigint;
  sponsored: bigint;
  spent: bigint;
}
export interface Plan {
  funding: 'COMPACT' | 'PERMIT2';
  layers: Map<number, string>;
  spends: Spend[];
  received: PlannedRequest[];
  cost: Cost;
}

/** Converts between the decimals of two tokens of one asset (USDC has 6 on most chains, 18 on BSC). */
export function rescale(amount: bigint, from: number, to: number, roundUp: boolean): bigint {
  if (from === to) return amount;
  if (to > from) return amount * 10n ** BigInt(to - from);
  const d = 10n ** BigInt(from - to);
  return roundUp ? (amount + d - 1n) / d : amount / d;
}

function layerFor(
  origin: number,
  input: PlanInput,
  registry: ChainRegistry,
  schedule: FeeSchedule,
  token: TokenInfo,
  target: TokenInfo,
  amountUsd: number,
): string | undefined {
  const allowed = (l: string) => !input.allowedLayers || input.allowedLayers.includes(l);
  if (origin === input.destinationChainId) return allowed('SAME_CHAIN') ? 'SAME_CHAIN' : undefined;
  const from = registry.chain(origin)?.settlementLayers ?? [];
  const to = registry.chain(input.destinationChainId)?.settlementLayers ?? [];
  const usable = BRIDGE_LAYERS.filter(
    (l) =>
      from.includes(l) &&
      to.includes(l) &&
      token.settlementLayers.includes(l) &&
      target.settlementLayers.includes(l) &&
      allowed(l),
  );
  const fee = (l: string) =>
    ((schedule.layers[l]?.bps ?? 0) / 10_000) * amountUsd + (schedule.layers[l]?.fixedUsd ?? 0);
  return usable.sort((a, b) => fee(a) - fee(b))[0];
}

/**
 * Picks the sources that fulfil every token request at the lowest cost: same-chain funds first, then the chains
 * whose claims cost least, one funding method (resource locks, else wallet funds) for the whole intent because the
 * client signs one kind of typed data per intent. Fees are charged in the first requested token.
 */
export function planIntent(input: PlanInput, registry: ChainRegistry, schedule: FeeSchedule, market: Market): Plan {
  return planAlternatives(input, registry, schedule, market, 1)[0];
}

/**
 * Up to `max` distinct ways to fulfil the intent: resource locks, then wallet funds, and for each the same funds
 * over other settlement layers than the cheapest when any is allowed. Callers that offer a choice rank them
 * (rankPlans); the first is the one planIntent picks.
 */
export function planAlternatives(
  input: PlanInput,
  registry: ChainRegistry,
  schedule: FeeSchedule,
  market: Market,
  max = 4,
): Plan[] {
  // Each request is covered by every spend of its asset, so an asset asked twice would be promised twice over.
  const symbols = input.requests.map((r) => r.token.symbol);
  const twice = symbols.find((s, i) => symbols.indexOf(s) !== i);
  if (twice !== undefined)
    throw new DomainError(
      'VALIDATION_ERROR',
      `${twice} is requested more than once: request each asset once, with the total amount`,
    );
  if (input.requests.filter((r) => r.amount === undefined).length > 1)
    throw new DomainError('VALIDATION_ERROR', 'Only one target token amount can be unset');
  if (input.requests.length === 0)
    throw new DomainError('VALIDATION_ERROR', 'No valid transfers sent for settlement quotes');
  const plans: Plan[] = [];
  let sawPlan = false;
  for (const funding of ['COMPACT', 'PERMIT2'] as const) {
    const attempt = tryFunding(funding, input, registry, schedule, market);
    sawPlan ||= attempt.sawPlan;
    if (!attempt.plan) continue;
    plans.push(attempt.plan);
    const bridges = new Set([...attempt.plan.layers.values()].filter((l) => l !== 'SAME_CHAIN'));
    if (plans.length < max && bridges.size) {
      const others = (input.allowedLayers ?? SETTLEMENT_LAYERS).filter((l) => !bridges.has(l));
      const alternative = tryFunding(funding, { ...input, allowedLayers: others }, registry, schedule, market).plan;
      if (alternative) plans.push(alternative);
    }
    if (plans.length >= max) return plans.slice(0, max);
  }
  if (plans.length) return plans;
  throw sawPlan || !hasAnyBalance(input)
    ? new DomainError('INSUFFICIENT_BALANCE', 'Insufficient balance')
    : new DomainError('NO_ROUTE', 'No Path Found');
}

const hasAnyBalance = (input: PlanInput) =>
  input.requests.some((r) => input.sources.some((s) => s.token.symbol === r.token.symbol && s.available > 0n));

function tryFunding(
  funding: 'COMPACT' | 'PERMIT2',
  input: PlanInput,
  registry: ChainRegistry,
  schedule: FeeSchedule,
  market: Market,
): { plan?: Plan; sawPlan: boolean } {
  const layers = new Map<number, string>();
  const remaining = new Map<Source, bigint>();
  const candidates = input.requests.map((r) => {
    const amountUsd =
      r.amount === undefined ? 0 : (Number(r.amount) / 10 ** r.token.decimals) * (market.priceUsd(r.token.symbol) ?? 0);
    return (
      input.sources
        .filter((s) => s.funding === funding && s.token.symbol === r.token.symbol && s.available > 0n)
        // Native coins cannot move through Permit2; they need wrapping first (not offered yet).
        .filter((s) => funding === 'COMPACT' || BigInt(s.token.address) !== 0n)
        .map((s) => ({ s, layer: layerFor(s.chainId, input, registry, schedule, s.token, r.token, amountUsd) }))
        .filter((c): c is { s: Source; layer: string } => c.layer !== undefined)
        .sort(
          (a, b) =>
            rank(a.s, input, schedule, market) - rank(b.s, input, schedule, market) ||
            (b.s.available > a.s.available ? 1 : -1),
        )
    );
  });
  const sawPlan = candidates.some((c) => c.length > 0);
  for (const list of candidates) for (const { s } of list) remaining.set(s, s.available);

  const spends = new Map<Source, bigint>();
  const received: PlannedRequest[] = input.requests.map((r) => ({
    token: r.token,
    target: r.amount ?? 0n,
    fee: 0n,
    sponsored: 0n,
    spent: 0n,
  }));
  // A fee that cannot be priced (no usable market data) means no plan, wherever it is computed.
  const cost = (amount: bigint, otherLegs: { token: TokenInfo; amount: bigint }[] = []) =>
    priced(() =>
      computeCost(
        {
          destinationChainId: input.destinationChainId,
          layers,
          destinationGasUnits: input.destinationGasUnits,
          feeToken: input.requests[0].token,
          amount,
          otherLegs,
          sponsor: input.sponsor,
        },
        schedule,
        market,
      ),
    );
  // The first leg pays gas and fixed fees too; every leg pays the percentage fees on its own amount.
  const legFees = (i: number, amount: bigint) => {
    if (i === 0) {
      const c = cost(amount);
      return { fee: c.userFee, sponsored: c.sponsoredFee };
    }
    const p = percentageFees(amount, layers.values(), schedule, input.sponsor);
    return { fee: p.user, sponsored: p.layer + p.protocol - p.user };
  };

  // Fees depend on which chains are used, so settle them by iterating until the chain set is stable.
  for (let round = 0; round < 4; round++) {
    const chainsBefore = layers.size;
    input.requests.forEach((r, i) => {
      const maxOut = r.amount === undefined;
      const take = (needed: bigint) => {
        let covered = covering(i);
        for (const { s, layer } of candidates[i]) {
          if (!maxOut && covered >= needed) break;
          const left = remaining.get(s)!;
          if (left === 0n) continue;
          const want = maxOut
            ? left
            : minBig(left, rescale(needed - covered, r.token.decimals, s.token.decimals, true));
          remaining.set(s, left - want);
          spends.set(s, (spends.get(s) ?? 0n) + want);
          layers.set(s.chainId, layers.get(s.chainId) ?? layer);
          covered = covering(i);
        }
        return covered;
      };
      if (maxOut) {
        take(0n);
        Object.assign(received[i], legFees(i, covering(i)));
        received[i].target = covering(i) - received[i].fee;
      } else {
        Object.assign(received[i], legFees(i, r.amount!));
        take(r.amount! + received[i].fee);
      }
    });
    if (layers.size === chainsBefore && round > 0) break;
  }

  function covering(i: number): bigint {
    let total = 0n;
    for (const [s, amount] of spends)
      if (s.token.symbol === input.requests[i].token.symbol)
        total += rescale(amount, s.token.decimals, input.requests[i].token.decimals, false);
    return total;
  }

  for (let i = 0; i < received.length; i++) {
    received[i].spent = covering(i);
    if (received[i].target <= 0n || received[i].spent < received[i].target + received[i].fee) return { sawPlan };
  }
  const plan: Plan = {
    funding,
    layers,
    spends: [...spends].map(([source, amount]) => ({ source, amount })),
    received,
    cost: cost(
      received[0].target,
      received.slice(1).map((r) => ({ token: r.token, amount: r.target })),
    ),
  };
  assertSolvent(plan);
  return { sawPlan, plan };
}

/** A plan that would promise more than it takes: a defect in the plan finder, never a quote to sign. */
export class InsolventPlan extends Error {}

/**
 * The last check before a plan can be signed: per asset, what it delivers plus its fees is at most what it spends
 * (compared exactly, at the largest decimals of the asset's tokens), and no source gives more than it holds.
 */
export function assertSolvent(plan: Plan): void {
  const bySource = new Map<Source, bigint>();
  for (const { source, amount } of plan.spends) bySource.set(source, (bySource.get(source) ?? 0n) + amount);
  for (const [source, amount] of bySource) {
    if (amount < 0n || amount > source.available)
      throw new InsolventPlan(
        `Plan spends ${amount} of ${source.available} ${source.token.symbol} on chain ${source.chainId}`,
      );
  }
  for (const symbol of new Set(plan.received.map((r) => r.token.symbol))) {
    const received = plan.received.filter((r) => r.token.symbol === symbol);
    const spent = plan.spends.filter((s) => s.source.token.symbol === symbol);
    const scale = Math.max(...received.map((r) => r.token.decimals), ...spent.map((s) => s.source.token.decimals));
    const promised = received.reduce((sum, r) => sum + rescale(r.target + r.fee, r.token.decimals, scale, false), 0n);
    const taken = spent.reduce((sum, s) => sum + rescale(s.amount, s.source.token.decimals, scale, false), 0n);
    if (received.some((r) => r.target <= 0n || r.fee < 0n) || promised > taken)
      throw new InsolventPlan(`Plan promises ${promised} ${symbol} (targets plus fees) but spends ${taken}`);
  }
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

function priced<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof PricingError) throw new DomainError('NO_ROUTE', 'No Path Found');
    throw e;
  }
}

/** The slowest layer a plan uses bounds when it is filled. */
export const planSeconds = (plan: Plan): number =>
  Math.max(0, ...[...plan.layers.values()].map((l) => LAYER_SECONDS[l] ?? 120));

/** What the user receives net of what it spends, in USD: the value a plan keeps after every fee. */
export const netUsd = (plan: Plan, market: Market): number =>
  plan.received.reduce((sum, r) => sum + tokenToUsd(r.target, r.token, market), 0) -
  plan.spends.reduce((sum, s) => sum + tokenToUsd(s.amount, s.source.token, market), 0);

/** Best first: the most the user keeps net of fees, then the fastest. */
export function rankPlans(plans: Plan[], market: Market): Plan[] {
  const keyed = plans.map((plan) => ({ plan, net: netUsd(plan, market), seconds: planSeconds(plan) }));
  return keyed.sort((a, b) => b.net - a.net || a.seconds - b.seconds).map((k) => k.plan);
}

/** Cheapest first: the destination chain itself (no bridge), then by the claim's gas cost. */
function rank(s: Source, input: PlanInput, schedule: FeeSchedule, market: Market): number {
  if (s.chainId === input.destinationChainId) return -1;
  const gas = market.gasPriceWei(s.chainId) ?? 0n;
  return (Number(schedule.originClaimGas * gas) / 1e18) * (market.priceUsd(market.nativeSymbol(s.chainId) ?? '') ?? 0);
}
