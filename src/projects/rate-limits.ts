import type { DataSource } from 'typeorm';
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export interface Quota { rps: number; burst: number }

/** The window of the burst allowance: up to `burst` requests above the rate, per this many seconds. */
export const BURST_WINDOW_SECONDS = 10;

export type Verdict = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * Per-project quotas on API-key routes: `rps` requests per second, plus up to `burst` more per
 * BURST_WINDOW_SECONDS, counted in PostgreSQL (rate-limiter-flexible's store) so every API process shares them.
 */
export class RateLimits {
  private readonly limiters = new Map<string, { consume(key: string): Promise<RateLimiterRes> }>();

  constructor(private readonly db: DataSource) {}

  private limiter(q: Quota) {
    const id = `${q.rps}/${q.burst}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const store = { storeClient: this.db, storeType: 'typeorm', tableName: 'rate_limits', tableCreated: true };
      const rate = new RateLimiterPostgres({ ...store, keyPrefix: 'rps', points: q.rps, duration: 1 });
      limiter = q.burst > 0 ? new BurstyRateLimiter(rate, new RateLimiterPostgres({ ...store, keyPrefix: 'burst', points: q.burst, duration: BURST_WINDOW_SECONDS })) : rate;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async consume(projectId: string, q: Quota): Promise<Verdict> {
    const verdict = (res: RateLimiterRes, allowed: boolean): Verdict => ({
      allowed, limit: q.rps, remaining: allowed ? res.remainingPoints : 0, resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      return verdict(await this.limiter(q).consume(projectId), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return verdict(e, false); // the library rejects with the result when over quota
      throw e;
    }
  }
}
