import type { DataSource, EntityManager } from 'typeorm';

/**
 * A fresh allocator nonce for a withdrawal (quotes draw theirs from a NonceBlock): the sponsor's address in the top 160 bits (The Compact's sponsor-prefixed nonce space)
 * and a database sequence value below it. It is recorded before anything is signed with it, and a sequence never
 * hands out a value twice, so a nonce is never reused, whatever happens to the quote or withdrawal that asked for it.
 */
export async function allocateWithdrawalNonce(tx: EntityManager, sponsor: string): Promise<bigint> {
  const [{ seq }]: { seq: string }[] = await tx.query("SELECT nextval('allocator_nonce_seq') AS seq");
  const nonce = (BigInt(sponsor) << 96n) | BigInt(seq);
  await tx.query("INSERT INTO allocator_nonces (nonce, sponsor, purpose) VALUES ($1, $2, 'withdrawal')", [
    nonce.toString(),
    sponsor.toLowerCase(),
  ]);
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
    private readonly db: DataSource,
    private readonly size = 64,
  ) {}

  async next(sponsor: string): Promise<bigint> {
    while (!this.values.length) {
      this.refill ??= this.db
        .query("SELECT nextval('allocator_nonce_seq') AS v FROM generate_series(1, $1)", [this.size])
        .then((rows: { v: string }[]) => void this.values.push(...rows.map((r) => BigInt(r.v))))
        .finally(() => (this.refill = undefined));
      await this.refill;
    }
    return (BigInt(sponsor) << 96n) | this.values.shift()!;
  }
}
