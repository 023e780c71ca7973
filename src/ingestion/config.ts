import { ints } from '../env';

/**
 * What the indexer route accepts as a chain's time: a block timestamp at most `maxClockSkewSeconds` ahead of this
 * server's clock, and a fill at most that long before its quote (docs/indexer.md, What is refused).
 */
export type IndexerConfig = ReturnType<typeof indexerConfig>;

export const indexerConfig = (env: NodeJS.ProcessEnv) =>
  ints(env, {
    maxClockSkewSeconds: ['INDEXER_MAX_CLOCK_SKEW_SECONDS', 300, 0, 3600],
  });
