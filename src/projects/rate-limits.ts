import type { Db } from '../db/types';
import Redis from 'ioredis';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

export interface Quota {
  rps: number;
  burst: number;
}

/** The window of the burst allowance: up to `burst` requests above the rate, per this many seconds. */
export const BURST_WINDOW_SECONDS = 10;

export type Verdict = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * Per-project quotas on API-key routes: `rps` requests per second, plus up to `burst` more per
 * BURST_WINDOW_SECONDS, counted in a store every API process shares: PostgreSQL (rate-limiter-flexible's table), or
 * Redis when REDIS_URL is set. If the store fails, a per-process in-memory count stands in (the library's insurance
 * limiter), so a store outage never takes the API down.
 */
export class RateLimits {
  private readonly limiters = new Map<string, { consume(key: string, points?: number): Promise<RateLimiterRes> }>();
  private readonly redis?: Redis;

  constructor(
    private readonly db: Db,
    redisUrl?: string,
  ) {
    // No offline queue: while Redis is away a call fails at once and the insurance limiter answers.
    if (redisUrl)
      this.redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  }

  private store(keyPrefix: string, points: number, duration: number) {
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
    return this.redis
      ? new RateLimiterRedis({
          storeClient: this.redis,
          keyPrefix: `rl:${keyPrefix}`,
          points,
          duration,
          insuranceLimiter,
        })
      : new RateLimiterPostgres({
          storeClient: this.db,
          storeType: 'typeorm',
          tableName: 'rate_limits',
          tableCreated: true,
          keyPrefix,
          points,
          duration,
          insuranceLimiter,
        });
  }

  private limiter(q: Quota) {
    const id = `${q.rps}/${q.burst}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const rate = this.store('rps', q.rps, 1);
      limiter = q.burst > 0 ? new BurstyRateLimiter(rate, this.store('burst', q.burst, BURST_WINDOW_SECONDS)) : rate;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * A counter of `points` per `durationSeconds` per key in the same shared store (e.g. unattributed analytics events
   * per client address): resolves with the seconds to wait when the cost does not fit, else 0.
   */
  counter(keyPrefix: string, points: number, durationSeconds: number): (key: string, cost: number) => Promise<number> {
    const id = `${keyPrefix}:${points}/${durationSeconds}`;
    let limiter = this.limiters.get(id) as ReturnType<RateLimits['store']> | undefined;
    if (!limiter) this.limiters.set(id, (limiter = this.store(keyPrefix, points, durationSeconds)));
    const counting = limiter;
    return async (key, cost) => {
      try {
        await counting.consume(key, cost);
        return 0;
      } catch (e) {
        if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        throw e;
      }
    };
  }

  async close(): Promise<void> {
    await this.redis?.quit().catch(() => undefined); // a connection already lost leaves nothing to close
  }

  async consume(projectId: string, q: Quota): Promise<Verdict> {
    const verdict = (res: RateLimiterRes, allowed: boolean): Verdict => ({
      allowed,
      limit: q.rps,
      remaining: allowed ? res.remainingPoints : 0,
      resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    });
    try {
      return verdict(await this.limiter(q).consume(projectId), true);
    } catch (e) {
      if (e instanceof RateLimiterRes) return verdict(e, false); // the library rejects with the result when over quota
      throw e;
    }
  }
}
