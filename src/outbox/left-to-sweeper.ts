import type { Logger } from '../logger';

/**
 * The catch of a start or signal delivery a request performs after its commit: the outbox row stays and the sweeper
 * performs it, so the request answers anyway; the log says what was left (`what`, with `context`).
 */
export const leftToSweeper =
  (logger: Pick<Logger, 'warn'>, what: string, context: Record<string, unknown> = {}) =>
  (err: unknown): void => {
    logger.warn({ err, ...context }, `${what} deferred to the outbox sweeper`);
  };
