import { ints } from '../env';

/** Analytics events sent without an ingest token: events per minute per client address and per origin, rows kept */
export type UnattributedConfig = ReturnType<typeof unattributedConfig>;

export const unattributedConfig = (env: NodeJS.ProcessEnv) =>
  ints(env, {
    perAddressPerMinute: ['ANALYTICS_UNATTRIBUTED_PER_ADDRESS', 1000, 1, 10_000_000],
    perOriginPerMinute: ['ANALYTICS_UNATTRIBUTED_PER_ORIGIN', 10_000, 1, 100_000_000],
    cap: ['ANALYTICS_UNATTRIBUTED_CAP', 1_000_000, 0, 1_000_000_000],
  });
