import { ConfigError, int } from '../env';
import { type AddressRange, parseAddressRanges } from './client-address';

/** How long a request may take before it is answered 503 (src/http/deadline.ts). */
export interface DeadlineConfig {
  requestSeconds: number;
  externalSeconds: number;
}

/**
 * The HTTP layer's limits: the largest JSON body (`1mb`: @koa/bodyparser's syntax, see route.ts), the deadlines, and
 * the proxies whose X-Forwarded-For is believed (src/http/client-address.ts).
 */
export function httpConfig(env: NodeJS.ProcessEnv): {
  bodyLimit: string;
  deadlines: DeadlineConfig;
  trustedProxies: AddressRange[];
} {
  return {
    bodyLimit: env.BODY_LIMIT || '1mb',
    deadlines: {
      requestSeconds: int(env, 'REQUEST_DEADLINE_SECONDS', 5, 1, 600),
      externalSeconds: int(env, 'EXTERNAL_DEADLINE_SECONDS', 15, 1, 600),
    },
    trustedProxies: trustedProxies(env),
  };
}

/** TRUSTED_PROXIES: comma-separated addresses and CIDR ranges; none by default. */
function trustedProxies(env: NodeJS.ProcessEnv): AddressRange[] {
  const entries = (env.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  try {
    return parseAddressRanges(entries);
  } catch (err) {
    throw new ConfigError(
      `TRUSTED_PROXIES must be comma-separated IP addresses and CIDR ranges: ${(err as Error).message}`,
    );
  }
}
