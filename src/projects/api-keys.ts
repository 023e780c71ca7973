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
 * Resolves API keys (stored as SHA-256 hashes) to projects. Hits are cached briefly so the hot path does not read
 * the DB on every request; a revoked key stops working within `ttlMs`.
 */
export interface ResolvedKey {
  projectId: string;
  quota: Quota;
}

export class ApiKeyStore {
  private cache = new Map<string, { hit: ResolvedKey | null; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** The key's project and the project's own quota (null: the configured default). */
  async resolve(key: string): Promise<ResolvedKey | null> {
    const hash = hashKey(key);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return cached.hit;
    const row = await liveKeyProject(this.db, hash);
    const hit = row ? { projectId: row.projectId, quota: { rps: row.rateLimitRps, burst: row.rateLimitBurst } } : null;
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    // Unknown keys are cached for a shorter time so a freshly created key works almost at once.
    this.cache.set(hash, { hit, until: now + (row ? this.ttlMs : 1000) });
    return hit;
  }
}
