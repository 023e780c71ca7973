import { int } from '../env';

/** How long a request may take before it is answered 503 (src/http/deadline.ts). */
export interface DeadlineConfig { requestSeconds: number; externalSeconds: number }

/** The HTTP layer's limits: the largest JSON body (`1mb`: @koa/bodyparser's syntax, see route.ts) and the deadlines. */
export function httpConfig(env: NodeJS.ProcessEnv): { bodyLimit: string; deadlines: DeadlineConfig } {
  return {
    bodyLimit: env.BODY_LIMIT || '1mb',
    deadlines: {
      requestSeconds: int(env, 'REQUEST_DEADLINE_SECONDS', 5, 1, 600),
      externalSeconds: int(env, 'EXTERNAL_DEADLINE_SECONDS', 15, 1, 600),
    },
  };
}
