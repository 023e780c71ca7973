import type { EntityManager } from 'typeorm';

/**
 * A fresh allocator nonce: the sponsor's address in the top 160 bits (The Compact's sponsor-prefixed nonce space)
 * and a database sequence value below it. It is recorded before anything is signed with it, and a sequence never
 * hands out a value twice, so a nonce is never reused, whatever happens to the quote or withdrawal that asked for it.
 */
export async function allocateNonce(tx: EntityManager, sponsor: string, purpose: 'intent' | 'withdrawal'): Promise<bigint> {
  const [{ seq }]: { seq: string }[] = await tx.query("SELECT nextval('allocator_nonce_seq') AS seq");
  const nonce = (BigInt(sponsor) << 96n) | BigInt(seq);
  await tx.query('INSERT INTO allocator_nonces (nonce, sponsor, purpose) VALUES ($1, $2, $3)', [nonce.toString(), sponsor.toLowerCase(), purpose]);
  return nonce;
}
