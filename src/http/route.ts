import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { bodyAjv, bodyFirstErrorAjv, type Infer, paramAjv, paramFirstErrorAjv, type Promised, Schema } from './schema';
import { ApiError, inputProblemError, Location, validationError } from './errors';
import { exponentNumbers, findInputProblem, holdsMoreThan, LIMITS, withArrayLimits } from './limits';
import type { Services } from './services';
import { receivingBody } from './deadline';
import type { ApiVersion } from './versions';

/** `session`: a compliance customer's browser bearer (src/compliance/session-auth.ts). */
export type Auth = 'apiKey' | 'indexerKey' | 'relayerKey' | 'session' | 'none';

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

type Slot = Schema | undefined;
/** `mediaType`: an answer that is not JSON (a stream of server-sent events), documented as such and not validated. */
type Responses = Record<number, { description: string; schema?: Schema; mediaType?: string }>;
/**
 * The body of a successful answer (a handler throws the others): what the schema of one of the route's documented
 * 2xx answers declares; anything, where one of them has no schema.
 */
type Body<R> = Or<
  {
    [S in keyof R]: `${S & number}` extends `2${string}`
      ? R[S] extends { schema: infer X }
        ? Promised<X>
        : unknown
      : never;
  }[keyof R]
>;
type Or<T> = [T] extends [never] ? unknown : T;

/** Where a route is and who may call it. */
interface RoutePlace {
  method: 'get' | 'post' | 'delete';
  path: string;
  tags: string[];
  auth: Auth;
  /** The API versions that serve this route (all when absent); under any other the path is unknown (404). */
  versions?: readonly ApiVersion[];
}

/** What a route takes, answers and does; its handler sees `Input`, the output of its schemas' validators. */
interface RouteContent<B extends Slot, Q extends Slot, P extends Slot, R extends Responses, Input, Output> {
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Query strings reach the validator after this (e.g. `chainIds[]=` and comma lists become one array). */
  normalizeQuery?: (raw: Record<string, string | string[] | undefined>) => Record<string, unknown>;
  responses: R;
  handler(ctx: Context, input: Input, services: Services): Promise<{ status: number; body: Output }>;
}

/** A route as written: its handler's input is the type its schemas declare (`Infer`), so the two cannot drift apart. */
type TypedContent<B extends Slot, Q extends Slot, P extends Slot, R extends Responses> = RouteContent<
  B,
  Q,
  P,
  R,
  NoInfer<RouteInput<Infer<B>, Infer<Q>, Infer<P>>>,
  NoInfer<Body<R>>
>;

/**
 * A route is data: its schemas validate requests and feed the OpenAPI document; its handler sees valid input only.
 * Routes of every input share this type: `handler` is a method, whose parameter TypeScript compares both ways, so
 * a typed route (defineRoute, routeGroup) is a RouteDef, and mount gives each handler what its own schemas admit.
 */
export interface RouteDef
  extends RoutePlace, RouteContent<Slot, Slot, Slot, Responses, RouteInput<unknown, unknown, unknown>, unknown> {}

export const defineRoute = <
  const B extends Slot = undefined,
  const Q extends Slot = undefined,
  const P extends Slot = undefined,
  const R extends Responses = Responses,
>(
  def: RoutePlace & TypedContent<B, Q, P, R>,
): RouteDef => def;

/**
 * The routes of one area share their OpenAPI tags and auth, and mostly the API versions serving them (routes under
 * one parameterized path, its params too): the group's definer takes each route's method and path, and what is its
 * own (its auth or versions too, where they differ from the group's).
 */
export function routeGroup<const GP extends Slot = undefined>(
  shared: Omit<RoutePlace, 'method' | 'path'> & { params?: GP },
) {
  return <
    const B extends Slot = undefined,
    const Q extends Slot = undefined,
    const P extends Slot = GP,
    const R extends Responses = Responses,
  >(
    method: RouteDef['method'],
    path: string,
    def: TypedContent<B, Q, P, R> & Partial<Pick<RoutePlace, 'auth' | 'versions'>>,
  ): RouteDef => ({ ...shared, ...def, method, path });
}

function validator(location: Location, raw: Schema | undefined, coerce: boolean) {
  if (!raw) return (value: unknown, _exponents?: Set<number>) => value;
  const schema = withArrayLimits(raw);
  const first = (coerce ? paramFirstErrorAjv : bodyFirstErrorAjv).compile(schema);
  const all = (coerce ? paramAjv : bodyAjv).compile(schema);
  return (value: unknown, exponents?: Set<number>) => {
    if (!first(value)) {
      // Every problem of a small input; the first one only of a large one, whose problems could be countless.
      const errors = !holdsMoreThan(value, LIMITS.fullReportValues) && !all(value) ? all.errors : first.errors;
      throw validationError(location, errors ?? []);
    }
    const problem = findInputProblem(value, exponents);
    if (problem) throw inputProblemError(location, problem);
    return value;
  };
}

/** The request's JSON text as read: the body parser declares it always there, but a request without a body has none. */
export const rawBody = (ctx: Context): string | undefined => ctx.request.rawBody;

/** The request has a body to read: a `content-length` above 0, or a chunked one. */
const hasBody = (ctx: Context) =>
  ctx.request.length === undefined ? ctx.get('transfer-encoding') !== '' : ctx.request.length > 0;

/**
 * Reads a JSON body once the caller is authenticated (an anonymous caller costs no parsing). Another content type
 * is 415; a body that does not inflate (`Content-Encoding: gzip` over anything else) is 400 like malformed JSON.
 */
function bodyReader(limit: string): (ctx: Context) => Promise<void> {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: limit, encoding: 'utf-8' });
  return async (ctx) => {
    if (!hasBody(ctx)) return;
    if (!ctx.is('json'))
      throw new ApiError(415, 'Unsupported Media Type: send application/json', {
        errors: [
          {
            message: 'Unsupported Media Type: send application/json',
            context: { contentType: ctx.get('content-type') },
          },
        ],
      });
    try {
      await receivingBody(ctx, () => parse(ctx, async () => undefined));
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      if (code.startsWith('Z_'))
        throw new ApiError(400, 'entity.parse.failed', {
          errors: [
            {
              message: 'entity.parse.failed',
              context: { detail: `the body does not decode as ${ctx.get('content-encoding')}` },
            },
          ],
        });
      throw e;
    }
    // Exponent literals are found in the text, and refused where the body's validation finds them (naming the field).
    const text = rawBody(ctx);
    if (text) ctx.state.bodyExponents = exponentNumbers(text);
  };
}

export function mount(
  router: Router,
  routes: RouteDef[],
  services: Services,
  auth: Record<Auth, Middleware>,
  before: Middleware[],
): void {
  // One router entry per method and path: versions that shape a path differently share it, and the request's
  // version picks the definition.
  const groups = new Map<string, RouteDef[]>();
  const readBody = bodyReader(services.config.bodyLimit);
  for (const route of routes)
    groups.set(`${route.method} ${route.path}`, [...(groups.get(`${route.method} ${route.path}`) ?? []), route]);
  for (const group of groups.values()) {
    const serve = group.map((route) => ({ route, run: handle(route, services, auth[route.auth], readBody) }));
    const { method, path } = group[0];
    router[method](path.replace(/\{(\w+)\}/g, ':$1'), ...before, async (ctx, next) => {
      const match = serve.find(({ route }) => !route.versions || route.versions.includes(ctx.state.apiVersion));
      if (!match)
        throw new ApiError(404, `Route ${ctx.method} ${ctx.path} not found in version ${ctx.state.apiVersion}`);
      if (match.route.versions) ctx.state.versionedRoute = true;
      await match.run(ctx, next);
    });
  }
}

function handle(
  route: RouteDef,
  services: Services,
  authenticate: Middleware,
  readBody: (ctx: Context) => Promise<void>,
): Middleware {
  const body = validator('body', route.body, false);
  const query = validator('query', route.query, true);
  const params = validator('params', route.params, true);
  return (ctx) =>
    authenticate(ctx, async () => {
      await readBody(ctx);
      const rawQuery = { ...(ctx.query as Record<string, string | string[] | undefined>) };
      const input = {
        params: params({ ...ctx.params }),
        query: query(route.normalizeQuery ? route.normalizeQuery(rawQuery) : rawQuery),
        body: body(ctx.request.body ?? {}, ctx.state.bodyExponents as Set<number> | undefined),
      };
      const result = await route.handler(ctx, input as RouteInput<unknown, unknown, unknown>, services);
      ctx.status = result.status;
      ctx.body = result.body;
    });
}
