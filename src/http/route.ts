import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { bodyAjv, paramAjv, Schema } from './schema';
import { ApiError, Location, validationError } from './errors';
import type { Services } from './services';
import type { ApiVersion } from '../versions/versions';

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
  /** The API versions that serve this route (all when absent); under any other the path is unknown (404). */
  versions?: readonly ApiVersion[];
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
  // One router entry per method and path: versions that shape a path differently share it, and the request's
  // version picks the definition.
  const groups = new Map<string, RouteDef[]>();
  for (const route of routes) groups.set(`${route.method} ${route.path}`, [...(groups.get(`${route.method} ${route.path}`) ?? []), route]);
  for (const group of groups.values()) {
    const serve = group.map((route) => ({ route, run: handle(route, services, auth[route.auth]) }));
    const { method, path } = group[0];
    router[method](path.replace(/\{(\w+)\}/g, ':$1'), ...before, async (ctx, next) => {
      const match = serve.find(({ route }) => !route.versions || route.versions.includes(ctx.state.apiVersion));
      if (!match) throw new ApiError(404, `Route ${ctx.method} ${ctx.path} not found in version ${ctx.state.apiVersion}`);
      if (match.route.versions) ctx.state.versionedRoute = true;
      await match.run(ctx, next);
    });
  }
}

function handle(route: RouteDef, services: Services, authenticate: Middleware): Middleware {
  const body = validator('body', route.body, false);
  const query = validator('query', route.query, true);
  const params = validator('params', route.params, true);
  return (ctx) => authenticate(ctx, async () => {
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
