import { ints } from '../env';

/**
 * How often an open stream of the order feed looks for newly opened intents, how often it sends a keep-alive, and how
 * many streams one relayer key may hold open on one API process.
 */
export type RelayerConfig = ReturnType<typeof relayerConfig>;

export const relayerConfig = (env: NodeJS.ProcessEnv) =>
  ints(env, {
    feedPollMs: ['RELAYER_FEED_POLL_MS', 1000, 50, 60_000],
    feedKeepAliveSeconds: ['RELAYER_FEED_KEEPALIVE_SECONDS', 15, 1, 300],
    feedMaxStreams: ['RELAYER_FEED_MAX_STREAMS', 4, 1, 1000],
  });
