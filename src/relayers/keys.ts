import { randomBytes } from 'node:crypto';
import type { Db } from '../db/types';
import { DomainError } from '../errors';
import { hashKey } from '../projects/api-keys';
import { insertRelayerKey, liveRelayer } from './store';

/** A new relayer's key, shown once (only its hash is kept). A name already given is refused. */
export async function createRelayerKey(db: Db, name: string): Promise<{ relayerId: string; relayerKey: string }> {
  const relayerKey = `rk_${randomBytes(32).toString('base64url')}`;
  const relayerId = await insertRelayerKey(db, name, hashKey(relayerKey), relayerKey.slice(0, 10));
  if (!relayerId) throw new DomainError('CONFLICT', `A relayer named ${name} exists: revoke it or choose another name`);
  return { relayerId, relayerKey };
}

export interface Relayer {
  id: string;
  name: string;
}

/**
 * Resolves relayer keys to relayers. Hits are cached briefly so a relayer polling the feed does not read the key on
 * every request; a revoked key stops working within `ttlMs`.
 */
export class RelayerKeyStore {
  private cache = new Map<string, { hit: Relayer | null; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 1000,
  ) {}

  async resolve(key: string): Promise<Relayer | null> {
    const hash = hashKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return cached.hit;
    const hit = (await liveRelayer(this.db, hash)) ?? null;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    // Unknown keys are cached for a shorter time so a freshly issued key works almost at once.
    this.cache.set(hash, { hit, until: now + (hit ? this.ttlMs : 1000) });
    return hit;
  }
}
