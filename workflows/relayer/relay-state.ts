import type { ClaimAuthorizationView, FillFacts } from './contract';

/**
 * The relayer's decisions, pure (workflows/relayer/relay-intent.ts acts on them; test/unit/relay-state.test.ts).
 *
 * The fill rule: fill only on chains the relayer is set up for, while the fill deadline is ahead, when nobody has filled the intent yet, when the relayer
 * holds every token the fill pays on the destination chain, and when the intent's fees, valued in wei, cover the
 * gas of the fill and of every claim at current gas prices. A fill of ours already mined (a run before a crash) is
 * taken up, never sent again.
 */
export type Decision = { fill: true; resume?: string } | { fill: false; reason: string };

export function decideFill(f: FillFacts): Decision {
  if (f.unsupported) return { fill: false, reason: f.unsupported };
  if (f.filled?.by === 'us') return { fill: true, resume: f.filled.tx };
  if (f.filled) return { fill: false, reason: `filled by another relayer (${f.filled.tx})` };
  if (f.now >= f.fillDeadline) return { fill: false, reason: `the fill deadline ${f.fillDeadline} has passed` };
  const short = f.inventory.filter((i) => BigInt(i.held) < BigInt(i.needed));
  if (short.length)
    return {
      fill: false,
      reason: `no inventory: ${short.map((i) => `${i.token} holds ${i.held}, needs ${i.needed}`).join('; ')}`,
    };
  if (f.feesWei === null) return { fill: false, reason: 'a token of the intent has no price (RELAYER_PRICES)' };
  if (BigInt(f.feesWei) < BigInt(f.gasWei))
    return { fill: false, reason: `the fees (${f.feesWei} wei) do not cover the gas (${f.gasWei} wei)` };
  return { fill: true };
}

/** What is done with each origin element once the fill is proven. */
export type ClaimStep = 'claim' | 'settled' | 'unattested';

/**
 * A lock the allocator no longer authorizes (its reservation released: claimed already, or cancelled) is settled;
 * an element the service attests no fill for has an arbiter that is not the service's, which pays no relayer
 * without it; every other element, a lock or wallet funds through Permit2, is claimed through its arbiter.
 */
export const claimSteps = (auth: ClaimAuthorizationView): ClaimStep[] =>
  auth.elements.map((e) =>
    e.fundingMethod === 'COMPACT' && !e.allocatorData ? 'settled' : e.attested ? 'claim' : 'unattested',
  );

/** The fees an intent earns, per token symbol: what its claims pay less what its fill pays (negative: a loss). */
export function feesBySymbol(
  claimed: { symbol: string; amount: string }[],
  paid: { symbol: string; amount: string }[],
): Record<string, string> {
  const out: Record<string, bigint> = {};
  for (const c of claimed) out[c.symbol] = (out[c.symbol] ?? 0n) + BigInt(c.amount);
  for (const p of paid) out[p.symbol] = (out[p.symbol] ?? 0n) - BigInt(p.amount);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.toString()]));
}

/**
 * `fees` valued in wei at `weiPerUnit` (wei for one smallest unit of a symbol, scaled by 10^18 so a cheap token
 * still counts); null when a symbol has no price.
 */
export function feesInWei(fees: Record<string, string>, weiPerUnitE18: Record<string, string>): string | null {
  let total = 0n;
  for (const [symbol, amount] of Object.entries(fees)) {
    const price = weiPerUnitE18[symbol];
    if (price === undefined) return null;
    total += (BigInt(amount) * BigInt(price)) / 10n ** 18n;
  }
  return total.toString();
}
