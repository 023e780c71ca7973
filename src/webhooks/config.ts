import { bool, int, seconds, type NodeEnv } from '../env';

/** Webhook delivery settings (docs/configuration.md: WEBHOOK_*). */
export interface WebhookConfig {
  /** per attempt: connect, send and the receiver's answer */
  timeoutSeconds: number;
  /** seconds between attempts (the first attempt is immediate), jittered by up to a tenth */
  retryDelaysSeconds: number[];
  /** an endpoint that has failed every attempt for this long is disabled */
  disableAfterSeconds: number;
  /** how long a rotated-out secret still signs (both signatures are sent) */
  secretOverlapSeconds: number;
  /** SSRF policy: plain http, loopback and private targets are refused unless allowed */
  allowHttp: boolean;
  allowLoopback: boolean;
  allowPrivate: boolean;
  /**
   * attempts in flight per worker process, in all and per endpoint: with a receiver's response time they bound how
   * many events a second a worker delivers
   */
  concurrency: number;
  endpointConcurrency: number;
  /**
   * a project keeps as many of a worker's slots as it had in flight at most in this window, while other projects wait
   * (src/webhooks/shares.ts), so a tenant that delivers steadily never waits for another's slow attempts
   */
  projectReserveSeconds: number;
  /** a leased first attempt whose worker went silent is leased again this long after the attempt's timeout */
  leaseSeconds: number;
}

/** Svix's schedule continued daily, about 3 days in all: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h. */
const DEFAULT_RETRY_DELAYS = '5,300,1800,7200,18000,36000,36000,86400,86400';

export function webhookConfig(env: NodeJS.ProcessEnv, nodeEnv: NodeEnv): WebhookConfig {
  return {
    timeoutSeconds: int(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 60),
    retryDelaysSeconds: seconds(env, 'WEBHOOK_RETRY_DELAYS', DEFAULT_RETRY_DELAYS),
    disableAfterSeconds: int(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 86_400, 1, 90 * 86_400),
    secretOverlapSeconds: int(env, 'WEBHOOK_SECRET_OVERLAP_SECONDS', 86_400, 0, 30 * 86_400),
    allowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', nodeEnv !== 'production'),
    allowLoopback: bool(env, 'WEBHOOK_ALLOW_LOOPBACK', nodeEnv !== 'production'),
    allowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 200, 1, 10_000),
    endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 32, 1, 1000),
    projectReserveSeconds: int(env, 'WEBHOOK_PROJECT_RESERVE_SECONDS', 60, 0, 3600),
    leaseSeconds: int(env, 'WEBHOOK_CLAIM_LEASE_SECONDS', 30, 1, 3600),
  };
}
