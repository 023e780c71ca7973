import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { bodyAjv, paramAjv, Schema } from './schema';
import { Location, validationError } from './errors';
import type { Services } from './services';

/** `session`: a compliance customer's browser bearer (src/compliance/session-auth.ts). */
export type Auth = 'apiKey' | 'indexerKey' | 'session' | 'none';

export interface RouteInput<B, Q, P> { body: B; query: Q; params: P }

/** A route is data: its schemas validate requests and feed the OpenAPI document; its handler sees valid input only. */
export interface RouteDef<B = unknown, Q = unknown, P = unknown> {
  method: 'get' | 'post' | 'delete';
  path: string;
  summary: string;
  tags: string[];
  auth: Auth;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  /** Query strings reach the validator after this (e.g. `chainIds[]=` and comma lists become one array). */
  normalizeQuery?: (raw: Record<string, string | string[] | undefined>) => Record<string, unknown>;
  responses: Record<number, { description: string; schema?: Schema }>;
  handler: (ctx: Context, input: RouteInput<B, Q, P>, services: Services) => Promise<{ status: number; body: unknown }>;
}

export const defineRoute = <B, Q, P>(def: RouteDef<B, Q, P>): RouteDef => def as unknown as RouteDef;

function validator(location: Location, schema: Schema | undefined, coerce: boolean) {
  if (!schema) return (value: unknown) => value;
  const validate = (coerce ? paramAjv : bodyAjv).compile(schema);
  return (value: unknown) => {
    if (!validate(value)) throw validationError(location, validate.errors ?? []);
    return value;
  };
}

export function mount(router: Router, routes: RouteDef[], services: Services, auth: Record<Auth, Middleware>, before: Middleware[]): void {
  for (const route of routes) {
    const body = validator('body', route.body, false);
    const query = validator('query', route.query, true);
    const params = validator('params', route.params, true);
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    router[route.method](koaPath, ...before, auth[route.auth], async (ctx) => {
      const rawQuery = { ...(ctx.query as Record<string, string | string[] | undefined>) };
      const input = {
        params: params({ ...ctx.params }),
        query: query(route.normalizeQuery ? route.normalizeQuery(rawQuery) : rawQuery),
        body: body((ctx.request as unknown as { body?: unknown }).body ?? {}),
      };
      const result = await route.handler(ctx, input as RouteInput<unknown, unknown, unknown>, services);
      ctx.status = result.status;
      ctx.body = result.body;
    });
  }
}
