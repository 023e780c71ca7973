import type { Context, Middleware, Next } from 'koa';
import { bearerToken } from '../http/middleware';
import { unauthorized } from '../http/errors';
import type { Services } from '../http/services';
import { readSession, SessionInvalid } from './session-token';
import { sessionLive } from './store';

/**
 * Browser routes take the customer's session bearer only (an API key must never reach a browser). Answers are
 * never cached, errors included.
 */
export function sessionAuth(services: Services): Middleware {
  return async (ctx: Context, next: Next) => {
    ctx.set('cache-control', 'no-store');
    const token = bearerToken(ctx.get('authorization'));
    if (!token) {
      throw unauthorized(
        ctx.get('x-api-key')
          ? 'API keys are not accepted on this route: send the customer session bearer'
          : 'Missing or malformed bearer token',
      );
    }
    try {
      ctx.state.session = await readSession(services.complianceSessionKey, token, services.clock());
    } catch (e) {
      if (e instanceof SessionInvalid) throw unauthorized(e.message);
      throw e;
    }
    if (!(await sessionLive(services.db, ctx.state.session))) throw unauthorized('Session revoked');
    await next();
  };
}
