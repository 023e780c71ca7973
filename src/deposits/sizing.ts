import { rescale } from '../intents/plan-finder';

/**
 * What a deposit's intent asks for on the target: the deposit in target units minus the fee of moving everything the
 * account has available there (`available` ≥ the deposit). The core adds the fee of the requested amount on top, and
 * a fee never falls as the amount grows, so the intent spends at most the deposit: what else the account holds stays.
 * Not positive: the deposit does not cover the fees.
 */
export function targetAmount(
  deposit: bigint,
  sourceDecimals: number,
  targetDecimals: number,
  feeOfAvailable: bigint,
): bigint {
  return rescale(deposit, sourceDecimals, targetDecimals, false) - feeOfAvailable;
}

/** The total a cost answer spends (every chain and token of `tokensSpent`, locked and unlocked). */
export function totalSpent(cost: {
  tokensSpent: Record<string, Record<string, { locked: string; unlocked: string }>>;
}): bigint {
  let total = 0n;
  for (const chain of Object.values(cost.tokensSpent))
    for (const t of Object.values(chain)) total += BigInt(t.locked) + BigInt(t.unlocked);
  return total;
}
