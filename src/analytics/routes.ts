import fs from 'node:fs';
import path from 'node:path';
import type { Context, Middleware, Next } from 'koa';
import { DomainError } from '../errors';
import { bearerToken } from '../http/middleware';
import { project } from '../http/project';
import { routeGroup, type RouteDef } from '../http/route';
import { dateTime } from '../http/schema';
import { MODALS } from './rules';
import { funnel, storeEvents, type FunnelQuery } from './store';
import { mintToken, readToken } from './tokens';
import { reportPage } from './report-page';
import { validateEvent, type AcceptedEvent } from './validate';

/** Events per ingest call; a larger batch is refused whole (400) so the widget splits it. */
export const MAX_BATCH = 500;
// The UMD bundle is not among the package's exports: find it beside the CommonJS entry.
const CHART_JS = path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js');
const DAY = 86_400_000;

const funnelQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { ...dateTime, description: 'default: 7 days before `to`' },
    to: { ...dateTime, description: 'default: now' },
    modal: { type: 'string', enum: [...MODALS], default: 'deposit' },
    fundingMethod: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]{0,63}$',
      description: 'only sessions that chose this funding method',
    },
  },
} as const;
type FunnelParams = { from?: string; to?: string; modal: string; fundingMethod?: string };

function window(projectId: string, q: FunnelParams): FunnelQuery {
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - 7 * DAY);
  if (from >= to) throw new DomainError('VALIDATION_ERROR', 'query.from must be before query.to');
  if (to.getTime() - from.getTime() > 366 * DAY)
    throw new DomainError('VALIDATION_ERROR', 'the report covers at most 366 days');
  return { projectId, from, to, modal: q.modal, fundingMethod: q.fundingMethod };
}

/**
 * CORS for the browser-facing ingest route: any origin may send (collection must work on every integrator's site;
 * attribution comes from the token, not the origin); preflights are answered here.
 */
export function ingestCors(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/analytics/events') return next();
    const origin = ctx.get('origin');
    if (origin) {
      ctx.set('access-control-allow-origin', origin);
      ctx.vary('origin');
    }
    if (ctx.method !== 'OPTIONS') return next();
    ctx.set('access-control-allow-methods', 'POST, OPTIONS');
    ctx.set('access-control-allow-headers', 'authorization, content-type');
    ctx.set('access-control-max-age', '600');
    ctx.status = 204;
  };
}

/**
 * The widget's token route, served on the current host and under `/deposit-processor` (where a customer's proxy for
 * the widget points).
 */
/** Routes of a project's API key, and browser routes that authenticate on their own (a token, or the key as well). */
const keyed = routeGroup({ tags: ['analytics'], auth: 'apiKey' });
const open = routeGroup({ tags: ['analytics'], auth: 'none' });

export const ingestTokenRoute: RouteDef = keyed('post', '/analytics/ingest-token', {
  summary:
    'Mint a short-lived ingest token for the widget (call through your backend proxy; answer with Cache-Control: no-store)',
  body: {
    type: 'object',
    additionalProperties: false,
    properties: {
      sessionId: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        description: 'optional: bind the token to one widget session',
      },
    },
  },
  responses: { 201: { description: '{token, expiresAt}' } },
  async handler(ctx, { body }, s) {
    ctx.set('cache-control', 'no-store');
    const minted = await mintToken(
      s.complianceSessionKey,
      'analytics-ingest',
      { pid: project(ctx), ...(body.sessionId ? { sid: body.sessionId } : {}) },
      s.clock(),
    );
    return { status: 201, body: { token: minted.token, expiresAt: minted.expiresAt.toISOString() } };
  },
});

export const analyticsRoutes: RouteDef[] = [
  ingestTokenRoute,
  open('post', '/analytics/events', {
    summary:
      'Widget analytics ingest (browser route; Authorization: Bearer <ingest token> attributes the events, without it they are stored unattributed)',
    body: {
      type: 'object',
      required: ['events'],
      properties: { events: { type: 'array', minItems: 1, maxItems: MAX_BATCH } },
    },
    responses: {
      200: {
        description: '{accepted, duplicates, rejected: [{index, problems}], dropped: [{index, fields}], attributed}',
      },
    },
    async handler(ctx, { body }, s) {
      const bearer = bearerToken(ctx.get('authorization'));
      const claims = bearer
        ? await readToken(s.complianceSessionKey, 'analytics-ingest', bearer, s.clock())
        : undefined;
      const projectId = typeof claims?.pid === 'string' ? claims.pid : null;
      if (projectId === null)
        await s.unattributedAnalytics.admit(
          s.config.analyticsUnattributed,
          ctx.ip,
          ctx.get('origin'),
          body.events.length,
        );
      const accepted: AcceptedEvent[] = [];
      const rejected: { index: number; problems: { field: string; message: string }[] }[] = [];
      const dropped: { index: number; fields: string[] }[] = [];
      body.events.forEach((raw, index) => {
        const v = validateEvent(raw);
        if (!v.ok) return void rejected.push({ index, problems: v.problems });
        if (claims?.sid && v.event.sessionId !== claims.sid)
          return void rejected.push({
            index,
            problems: [{ field: 'session_id', message: 'not the session the token was issued for' }],
          });
        accepted.push(v.event);
        if (v.dropped.length) dropped.push({ index, fields: v.dropped });
      });
      const stored = await storeEvents(s.db, projectId, accepted);
      return {
        status: 200,
        body: {
          accepted: accepted.length,
          duplicates: accepted.length - stored,
          rejected,
          dropped,
          attributed: projectId !== null,
          ...(bearer && !projectId
            ? { tokenError: 'invalid or expired ingest token: events stored unattributed' }
            : {}),
        },
      };
    },
  }),
  keyed('get', '/analytics/funnel', {
    summary:
      'The widget funnel: steps in order with conversion and drop-off, failures and friction by reason family, time to complete, widget vs processed deposit outcomes',
    query: funnelQuery,
    responses: { 200: { description: 'the funnel report' } },
    async handler(ctx, { query }, s) {
      return { status: 200, body: await funnel(s.db, window(project(ctx), query)) };
    },
  }),
  keyed('post', '/analytics/report-link', {
    summary: 'A link to the HTML report that works without the API key for an hour',
    body: funnelQuery,
    responses: { 201: { description: '{url, expiresAt}' } },
    async handler(ctx, { body }, s) {
      const claims = Object.fromEntries(
        Object.entries({ pid: project(ctx), ...body }).filter(([, v]) => v !== undefined),
      ) as Record<string, string>;
      const minted = await mintToken(s.complianceSessionKey, 'analytics-report', claims, s.clock());
      return {
        status: 201,
        body: {
          url: `${ctx.protocol}://${ctx.host}/analytics/report?token=${minted.token}`,
          expiresAt: minted.expiresAt.toISOString(),
        },
      };
    },
  }),
  open('get', '/analytics/report', {
    summary: 'The funnel report as an HTML page with a chart (x-api-key, or ?token= from POST /analytics/report-link)',
    query: {
      ...funnelQuery,
      properties: { ...funnelQuery.properties, token: { type: 'string', minLength: 1, maxLength: 4096 } },
    },
    responses: { 200: { description: 'text/html' }, 401: { description: 'neither a valid API key nor a valid link' } },
    async handler(ctx, { query }, s) {
      const { token, ...params } = query;
      let projectId: string | undefined;
      let q: FunnelParams = params;
      if (token) {
        const claims = await readToken(s.complianceSessionKey, 'analytics-report', token, s.clock());
        if (!claims) throw new DomainError('UNAUTHORIZED', 'This report link is invalid or has expired');
        projectId = String(claims.pid);
        q = {
          modal: String(claims.modal),
          ...(['from', 'to', 'fundingMethod'] as const).reduce(
            (o, k) => (claims[k] ? { ...o, [k]: String(claims[k]) } : o),
            {},
          ),
        };
      } else {
        const key = ctx.get('x-api-key');
        const resolved = key ? await s.apiKeys.resolve(key) : null;
        if (!resolved) throw new DomainError('UNAUTHORIZED', key ? 'Invalid API key' : 'Authentication is required');
        projectId = resolved.projectId;
      }
      ctx.type = 'html';
      ctx.set('cache-control', 'no-store');
      ctx.set(
        'content-security-policy',
        "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:",
      );
      return {
        status: 200,
        body: reportPage(await funnel(s.db, window(projectId, q)), '/analytics/assets/chart.umd.min.js'),
      };
    },
  }),
  open('get', '/analytics/assets/chart.umd.min.js', {
    summary: 'Chart.js for the report page, served from this origin (no CDN)',
    responses: { 200: { description: 'application/javascript' } },
    async handler(ctx) {
      ctx.type = 'application/javascript';
      ctx.set('cache-control', 'public, max-age=86400');
      return { status: 200, body: fs.createReadStream(CHART_JS) };
    },
  }),
];
