import type { ChainLog } from './chain-logs';

/** Whether Permit2 nonce `nonce` of `owner` is spent in the state after `block`. */
export type NonceSpent = (owner: string, nonce: bigint, block: bigint) => Promise<boolean>;

/** An intent holding an owner's wallet funds through Permit2: its nonce and the tokens it holds (lowercase). */
export interface WalletHold {
  nonce: string;
  tokens: Set<string>;
}

/**
 * The claims made through Permit2 among a range's logs. Permit2 emits nothing when it pulls funds, so a claim shows
 * as a transfer of a held token out of the owner (the intent's sponsor) in a block where the intent's nonce became
 * spent: set in the state after that block and not before it, and not cancelled by the owner in that block
 * (`UnorderedNonceInvalidation`). Reported at that block's first such transfer, as a `claim` of the nonce.
 * `holders`: per owner (lowercase), the intents that hold its wallet funds on this chain.
 */
export async function permit2Claims(
  logs: ChainLog[],
  holders: Map<string, WalletHold[]>,
  spent: NonceSpent,
): Promise<ChainLog[]> {
  const cancelled = (owner: string, block: bigint, nonce: bigint) =>
    logs.some(
      (l) =>
        l.kind === 'nonce-invalidation' &&
        l.owner === owner &&
        l.blockNumber === block &&
        l.word === nonce >> 8n &&
        ((l.mask >> (nonce & 0xffn)) & 1n) === 1n,
    );
  // Per (owner, nonce, block), the first transfer of a token the nonce holds.
  const candidates = new Map<
    string,
    { owner: string; nonce: bigint; at: Extract<ChainLog, { kind: 'token-transfer' }> }
  >();
  for (const l of logs) {
    if (l.kind !== 'token-transfer') continue;
    const owner = l.from.toLowerCase();
    for (const hold of holders.get(owner) ?? []) {
      const key = `${owner}:${hold.nonce}:${l.blockNumber}`;
      if (hold.tokens.has(l.token.toLowerCase()) && !candidates.has(key))
        candidates.set(key, { owner, nonce: BigInt(hold.nonce), at: l });
    }
  }
  const found = await Promise.all(
    [...candidates.values()].map(async ({ owner, nonce, at }): Promise<ChainLog | undefined> => {
      if (cancelled(owner, at.blockNumber, nonce)) return undefined;
      const [after, before] = await Promise.all([
        spent(owner, nonce, at.blockNumber),
        at.blockNumber > 0n ? spent(owner, nonce, at.blockNumber - 1n) : false,
      ]);
      if (!after || before) return undefined;
      const { blockNumber, blockHash, transactionHash, logIndex } = at;
      return { blockNumber, blockHash, transactionHash, logIndex, kind: 'claim', nonce, permit2: true };
    }),
  );
  return found.filter((c): c is ChainLog => c !== undefined);
}
