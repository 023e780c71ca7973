/** What one relayer of each settlement layer can fill of a token on the destination chain. */
export interface Liquidity {
  settlementLayer: string;
  token: string;
  amount: bigint;
}

export type SplitResult =
  | { ok: true; intents: Record<string, bigint>[] }
  | { ok: false; availableIntents: Record<string, bigint>[]; unfillable: Record<string, bigint> };

/**
 * Splits requested amounts into parts that one relayer each can fill: the largest relayer first, each part as big
 * as that relayer allows. Part i of the result holds the i-th part of every token. Unfillable remainders are
 * reported with the parts that could be formed.
 */
export function splitIntents(
  tokens: Record<string, bigint>,
  liquidity: Liquidity[],
  allowedLayers?: string[],
): SplitResult {
  const parts: Record<string, bigint>[] = [];
  const unfillable: Record<string, bigint> = {};
  for (const [token, requested] of Object.entries(tokens)) {
    const relayers = liquidity
      .filter(
        (l) =>
          l.token.toLowerCase() === token.toLowerCase() &&
          l.amount > 0n &&
          (!allowedLayers || allowedLayers.includes(l.settlementLayer)),
      )
      .sort((a, b) =>
        b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : a.settlementLayer.localeCompare(b.settlementLayer),
      );
    let remaining = requested;
    let i = 0;
    for (const relayer of relayers) {
      if (remaining === 0n) break;
      const part = remaining < relayer.amount ? remaining : relayer.amount;
      (parts[i++] ??= {})[token] = part;
      remaining -= part;
    }
    if (remaining > 0n) unfillable[token] = remaining;
  }
  return Object.keys(unfillable).length
    ? { ok: false, availableIntents: parts, unfillable }
    : { ok: true, intents: parts };
}
