import type { Db, Tx } from '../db/types';
import { nextNonceValue, nextNonceValues, recordWithdrawalNonce } from './store';

/**
 * A fresh allocator nonce for a withdrawal (quotes draw theirs from a NonceBlock): the sponsor's address in the top 160 bits (The Compact's sponsor-prefixed nonce space)
 * and a database sequence value below it. It is recorded before anything is signed with it, and a sequence never
 * hands out a value twice, so a nonce is never reused, whatever happens to the quote or withdrawal that asked for it.
 */
export async function allocateWithdrawalNonce(tx: Tx, sponsor: string): Promise<bigint> {
  const nonce = (BigInt(sponsor) << 96n) | BigInt(await nextNonceValue(tx));
  await recordWithdrawalNonce(tx, nonce, sponsor);
  return nonce;
}

/**
 * Sequence values for quote nonces, drawn a block at a time per process so a quote costs no round trip for its
 * nonce. A value is recorded (allocator_nonces) only with the quote that signs it; a process that dies leaves the
 * rest of its block unused, and a sequence never hands a value out twice.
 */
export class NonceBlock {
  private values: bigint[] = [];
  private refill?: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly size = 64,
  ) {}

  async next(sponsor: string): Promise<bigint> {
    while (!this.values.length) {
      this.refill ??= nextNonceValues(this.db, this.size)
        .then((values) => void this.values.push(...values))
        .finally(() => (this.refill = undefined));
      await this.refill;
    }
    return (BigInt(sponsor) << 96n) | this.values.shift()!;
  }
}
