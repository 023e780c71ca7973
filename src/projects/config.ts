import { int } from '../env';

/** Default per-project quota on API-key routes (a project may have its own: `npm run cli -- projects limit`) */
export interface RateLimitConfig {
  rps: number;
  burst: number;
  redisUrl?: string;
}

export function rateLimitConfig(env: NodeJS.ProcessEnv): RateLimitConfig {
  return {
    rps: int(env, 'RATE_LIMIT_RPS', 100, 1, 1_000_000),
    burst: int(env, 'RATE_LIMIT_BURST', 200, 0, 10_000_000),
    redisUrl: env.REDIS_URL || undefined,
  };
}
