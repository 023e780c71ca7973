import { Context } from '@temporalio/activity';

/**
 * An activity that heartbeats every `everyMs` while it runs: when its worker dies (kill -9), Temporal retries it once
 * the heartbeat timeout passes instead of waiting out the whole start-to-close timeout.
 */
export function heartbeating<A extends unknown[], R>(activity: (...args: A) => Promise<R>, everyMs = 1000) {
  return async (...args: A): Promise<R> => {
    const context = Context.current();
    const timer = setInterval(() => context.heartbeat(), everyMs);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
}
