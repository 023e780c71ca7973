import pino from 'pino';
import { activeTraceId } from './tracing/context';

export type Logger = pino.Logger;

/** With tracing on, a line logged within a trace (an activity's, the lease loop's) carries its `traceId`. */
export function createLogger(level: string, name: string): Logger {
  return pino({
    level,
    name,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const traceId = activeTraceId();
      return traceId ? { traceId } : {};
    },
  });
}
