import type { Context } from 'koa';
import { DomainError } from '../errors';
import { project } from '../http/project';
import { rawBody, routeGroup, type RouteDef } from '../http/route';
import { address, dateTime } from '../http/schema';
import type { Services } from '../http/services';
import { ProviderFailed, ProviderRefused, type Applicant } from './provider';
import { hostedPage, SandboxConflict, SandboxProvider, type Decision } from './sandbox';
import type { SessionClaims } from './session-token';
import { createOrResumeVerification } from './applicants';
import { acceptCallback, createSession, resolveCustomer, revokeSession, wireStatus } from './store';
import { leftToSweeper } from '../outbox/left-to-sweeper';

const sessionBody = {
  type: 'object',
  required: ['customerId'],
  additionalProperties: false,
  properties: {
    customerId: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._:@-]+$',
      description: 'your own id for the customer',
    },
    account: {
      ...address,
      description: "optional: the customer's account; an account belongs to the first customer that names it",
    },
    email: { type: 'string', format: 'email', maxLength: 254, description: 'optional, passed to the provider' },
    country: {
      type: 'string',
      pattern: '^[A-Za-z]{2}$',
      description: 'optional ISO 3166-1 alpha-2, passed to the provider',
    },
  },
} as const;
const verificationSession = {
  type: 'object',
  required: ['id', 'status', 'expiresAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['pending', 'completed', 'failed'] },
    expiresAt: {
      ...dateTime,
      description: "when the hosted link expires; without a link, when the customer's session does",
    },
    nextAction: {
      type: 'object',
      required: ['type', 'url', 'presentation'],
      additionalProperties: false,
      properties: {
        type: { const: 'hosted' },
        url: { type: 'string', format: 'uri' },
        presentation: { const: 'iframe' },
      },
    },
  },
} as const;
/** A sandbox hosted link's signed token, in the path. */
const linkParams = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 2048 } },
} as const;
const decisionBody = <const D extends Decision[]>(decisions: D) =>
  ({
    type: 'object',
    required: ['decision'],
    additionalProperties: false,
    properties: { decision: { type: 'string', enum: decisions } },
  }) as const;

/** Where links point: PUBLIC_URL, else the request's own origin. */
const origin = (ctx: Context, s: Services) => s.config.compliance.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
/**
 * Where the sandbox sends its callbacks: the listener that took this request (never a host the request names, which
 * a forwarded Host header could point anywhere).
 */
function selfUrl(ctx: Context): string {
  const address = (ctx.req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${ctx.req.socket.localPort}`;
}

function sandbox(s: Services): SandboxProvider {
  if (!(s.compliance instanceof SandboxProvider))
    throw new DomainError('NOT_FOUND', 'The sandbox provider is not enabled');
  return s.compliance;
}

async function decide(
  s: Services,
  ctx: Context,
  applicant: Awaited<ReturnType<SandboxProvider['applicantOfLink']>>,
  decision: Decision,
) {
  if (!applicant) throw new DomainError('NOT_FOUND', 'This verification link is invalid or has expired');
  try {
    return {
      status: 200,
      body: { applicantId: applicant.id, state: await sandbox(s).decide(applicant, decision, selfUrl(ctx)) },
    };
  } catch (e) {
    if (e instanceof SandboxConflict) throw new DomainError('CONFLICT', e.message);
    if (e instanceof ProviderFailed) throw new DomainError('PROVIDER_FAILED', e.message);
    throw e;
  }
}

const complianceRoute = routeGroup({ tags: ['compliance'], auth: 'apiKey' });
/** The sandbox provider's own pages and reviewer (src/compliance/sandbox.ts). */
const sandboxRoute = routeGroup({ tags: ['compliance', 'sandbox'], auth: 'none' });

/** Under /deposit-processor: error bodies are `{error, code?, details?}`. docs/compliance.md. */
export const complianceRoutes: RouteDef[] = [
  complianceRoute('post', '/compliance/sessions', {
    summary:
      "Mint a 15-minute browser session (JWT bearer) for one of the project's customers; call it from your backend only",
    body: sessionBody,
    responses: { 201: { description: '{sessionId, token, expiresAt}' } },
    async handler(ctx, { body }, s) {
      const minted = await createSession(s.db, project(ctx), body, s.complianceSessionKey, s.clock());
      return {
        status: 201,
        body: { sessionId: minted.sessionId, token: minted.token, expiresAt: minted.expiresAt.toISOString() },
      };
    },
  }),
  complianceRoute('delete', '/compliance/sessions/{sessionId}', {
    summary: 'Revoke a session before it expires',
    params: { type: 'object', required: ['sessionId'], properties: { sessionId: { type: 'string', format: 'uuid' } } },
    responses: { 200: { description: '{message}' }, 404: { description: 'no such session in this project' } },
    async handler(ctx, { params }, s) {
      if (!(await revokeSession(s.db, project(ctx), params.sessionId)))
        throw new DomainError('NOT_FOUND', 'Session not found');
      return { status: 200, body: { message: 'Session revoked' } };
    },
  }),
  complianceRoute('post', '/compliance/verification', {
    summary: "Create or resume provider-hosted verification for the session's customer (browser route, bearer only)",
    auth: 'session',
    body: {
      type: 'object',
      required: ['currency'],
      additionalProperties: false,
      properties: { currency: { type: 'string', enum: ['EUR', 'USD'] } },
    },
    responses: {
      200: { description: 'hosted verification session', schema: verificationSession },
      403: { description: 'the session does not match the resolved customer, or the provider refused the customer' },
      500: { description: 'failed to create the verification session' },
      502: { description: 'the provider rejected or failed the request' },
      503: { description: 'no provider configured, or sessions paused' },
    },
    async handler(ctx, { body }, s) {
      const session = ctx.state.session as SessionClaims;
      if (s.config.compliance.paused) throw new DomainError('DISABLED', 'Verification sessions are paused');
      const provider = s.compliance;
      if (!provider) throw new DomainError('DISABLED', 'No verification provider is configured');
      const customer = await resolveCustomer(s.db, session);
      if (customer.mismatch) throw new DomainError('FORBIDDEN', 'Session does not match the customer');
      const open = async (applicantId?: string): Promise<Applicant> => {
        try {
          return await provider.createOrResume({
            applicantId,
            reference: `${session.projectId}:${session.customerId}:${body.currency}`,
            currency: body.currency,
            email: customer.email,
            country: customer.country,
            origin: origin(ctx, s),
          });
        } catch (e) {
          if (e instanceof ProviderRefused) throw new DomainError('FORBIDDEN', e.message);
          if (e instanceof ProviderFailed) throw new DomainError('PROVIDER_FAILED', e.message);
          s.logger.error({ err: e, traceId: ctx.state.traceId }, 'verification provider call failed');
          throw new DomainError('INTERNAL', 'Failed to create the verification session');
        }
      };
      const key = { projectId: session.projectId, customerId: session.customerId, currency: body.currency };
      const v = await createOrResumeVerification(
        s.db,
        key,
        provider.name,
        open,
        s.config.compliance.pendingTimeoutSeconds,
      );
      if (v.start) await s.outbox.start(v.start).catch(leftToSweeper(s.logger, 'verification start'));
      return {
        status: 200,
        body: {
          id: v.id,
          status: wireStatus(v.state),
          expiresAt: (v.link?.expiresAt ?? session.expiresAt).toISOString(),
          ...(v.link && v.state === 'needs_input'
            ? { nextAction: { type: 'hosted', url: v.link.url, presentation: 'iframe' } as const }
            : {}),
        },
      };
    },
  }),
  complianceRoute('post', '/compliance/callbacks/{provider}', {
    summary:
      "The identity provider's signed status callbacks (recorded once each, then applied by the verification's lifecycle)",
    auth: 'none',
    params: {
      type: 'object',
      required: ['provider'],
      properties: { provider: { type: 'string', enum: ['sandbox', 'persona'] } },
    },
    responses: {
      200: { description: '{received: true}' },
      401: { description: 'bad signature' },
      404: { description: 'unknown applicant (the provider retries)' },
    },
    async handler(ctx, { params }, s) {
      if (s.compliance?.name !== params.provider)
        throw new DomainError('NOT_FOUND', `Provider ${params.provider} is not configured`);
      const raw = rawBody(ctx) ?? '';
      const accepted = await acceptCallback(s.db, params.provider, s.compliance.verifyCallback(raw, ctx.headers));
      // An applicant not (yet) recorded: the provider retries later, so a callback that overtook its create-or-resume is not lost.
      if (!accepted.known) throw new DomainError('NOT_FOUND', 'Unknown applicant');
      if (accepted.signals.length)
        await s.outbox.deliver(accepted.signals).catch(leftToSweeper(s.logger, 'verification signal'));
      return { status: 200, body: { received: true } };
    },
  }),
  sandboxRoute('get', '/compliance/sandbox/hosted/{token}', {
    summary: "The sandbox provider's hosted verification page (framable only by COMPLIANCE_FRAME_ANCESTORS)",
    params: linkParams,
    responses: { 200: { description: 'text/html' }, 404: { description: 'invalid or expired link' } },
    async handler(ctx, { params }, s) {
      const applicant = await sandbox(s).applicantOfLink(params.token);
      if (!applicant) throw new DomainError('NOT_FOUND', 'This verification link is invalid or has expired');
      ctx.set(
        'content-security-policy',
        `frame-ancestors ${s.config.compliance.frameAncestors}; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'`,
      );
      ctx.set('cache-control', 'no-store');
      ctx.set('referrer-policy', 'no-referrer');
      ctx.type = 'html';
      return { status: 200, body: hostedPage(applicant) };
    },
  }),
  sandboxRoute('post', '/compliance/sandbox/hosted/{token}/decision', {
    summary: "The sandbox hosted page's buttons: approve, reject or needs review (sends the provider callback)",
    params: linkParams,
    body: decisionBody(['approve', 'reject', 'review']),
    responses: {
      200: { description: '{applicantId, state}' },
      404: { description: 'invalid or expired link' },
      409: { description: 'already decided' },
    },
    async handler(ctx, { params, body }, s) {
      return decide(s, ctx, await sandbox(s).applicantOfLink(params.token), body.decision);
    },
  }),
  sandboxRoute('post', '/compliance/sandbox/applicants/{applicantId}/review', {
    summary: "The sandbox reviewer's decision on an applicant in review (approve or reject)",
    auth: 'apiKey',
    params: {
      type: 'object',
      required: ['applicantId'],
      properties: { applicantId: { type: 'string', minLength: 1, maxLength: 64 } },
    },
    body: decisionBody(['approve', 'reject']),
    responses: {
      200: { description: '{applicantId, state}' },
      404: { description: 'no such applicant in this project' },
      409: { description: 'not in review' },
    },
    async handler(ctx, { params, body }, s) {
      const applicant = await sandbox(s).applicantOfProject(project(ctx), params.applicantId);
      if (applicant && applicant.state !== 'in_review')
        throw new DomainError('CONFLICT', `The applicant is ${applicant.state}, not in review`);
      return decide(s, ctx, applicant, body.decision);
    },
  }),
];
