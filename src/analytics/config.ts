import { int } from '../env';

/** Analytics events sent without an ingest token: events per minute per client address and per origin, rows kept */
export interface UnattributedConfig { perAddressPerMinute: number; perOriginPerMinute: number; cap: number }

export function unattributedConfig(env: NodeJS.ProcessEnv): UnattributedConfig {
  return {
    perAddressPerMinute: int(env, 'ANALYTICS_UNATTRIBUTED_PER_ADDRESS', 1000, 1, 10_000_000),
    perOriginPerMinute: int(env, 'ANALYTICS_UNATTRIBUTED_PER_ORIGIN', 10_000, 1, 100_000_000),
    cap: int(env, 'ANALYTICS_UNATTRIBUTED_CAP', 1_000_000, 0, 1_000_000_000),
  };
}
