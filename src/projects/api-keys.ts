import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/types';
import { insertProjectWithKey, liveKeyProject, type Quota } from './store';

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export async function createProject(db: Db, name: string): Promise<{ projectId: string; apiKey: string }> {
  const apiKey = `sk_${randomBytes(32).toString('base64url')}`;
  const projectId = await insertProjectWithKey(db, name, hashKey(apiKey), apiKey.slice(0, 10));
  return { projectId, apiKey };
}

/**
 * Keys stored as SHA-256 hashes, resolved through `lookup`. Hits are cached briefly so the hot path does not read the
 * DB on every request; a revoked key stops working within `ttlMs`. Unknown keys are cached for a second only, so a
 * freshly issued key works almost at once.
 */
export class CachedKeys<T> {
  private cache = new Map<string, { hit: T | null; until: number }>();

  constructor(
    private readonly lookup: (hash: string) => Promise<T | undefined>,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  async resolve(key: string): Promise<T | null> {
    const hash = hashKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return cached.hit;
    const hit = (await this.lookup(hash)) ?? null;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(hash, { hit, until: now + (hit ? this.ttlMs : 1000) });
    return hit;
  }
}

/** A project's key: the project and its own quota (null: the configured default). */
export interface ResolvedKey {
  projectId: string;
  quota: Quota;
}

export class ApiKeyStore extends CachedKeys<ResolvedKey> {
  constructor(db: Db) {
    super(async (hash) => {
      const row = await liveKeyProject(db, hash);
      return row && { projectId: row.projectId, quota: { rps: row.rateLimitRps, burst: row.rateLimitBurst } };
    });
  }
}
