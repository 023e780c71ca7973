import type { ChainLog } from './chain-logs';

/** Whether Permit2 nonce `nonce` of `owner` is spent in the state after `block`. */
export type NonceSpent = (owner: string, nonce: bigint, block: bigint) => Promise<boolean>;

/**
 * The claims made through Permit2 among a range's logs. Permit2 emits nothing when it pulls funds, so a claim shows
 * as a transfer out of the owner (the intent's sponsor) in a block where the intent's nonce became spent: set in the
 * state after that block and not before it. Reported at the first such transfer of that block, as a `claim` of the
 * nonce. `holders`: per owner (lowercase), the nonces of its intents that hold its wallet funds on this chain.
 */
export async function permit2Claims(
  logs: ChainLog[],
  holders: Map<string, string[]>,
  spent: NonceSpent,
): Promise<ChainLog[]> {
  const firstOut = new Map<string, Extract<ChainLog, { kind: 'token-transfer' }>>();
  for (const l of logs) {
    if (l.kind !== 'token-transfer') continue;
    const owner = l.from.toLowerCase();
    const key = `${owner}:${l.blockNumber}`;
    if (holders.has(owner) && !firstOut.has(key)) firstOut.set(key, l);
  }
  const found = await Promise.all(
    [...firstOut.values()].flatMap((t) =>
      holders.get(t.from.toLowerCase())!.map(async (nonce): Promise<ChainLog | undefined> => {
        const n = BigInt(nonce);
        const [after, before] = await Promise.all([
          spent(t.from, n, t.blockNumber),
          t.blockNumber > 0n ? spent(t.from, n, t.blockNumber - 1n) : false,
        ]);
        if (!after || before) return undefined;
        const { blockNumber, blockHash, transactionHash, logIndex } = t;
        return { blockNumber, blockHash, transactionHash, logIndex, kind: 'claim', nonce: n, permit2: true };
      }),
    ),
  );
  return found.filter((c): c is ChainLog => c !== undefined);
}
