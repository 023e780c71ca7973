import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { waitFor } from '../../src/dev/processes';
import { createApp } from '../../src/api/app';
import type { Services } from '../../src/http/services';
import { Api, call, killWorkers, startApi, startWorker } from '../support/harness';
import { newProject, subscribe, type Project } from '../support/projects';
import { Receiver } from '../support/receiver';

const DP = '/deposit-processor';
let api: Api;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
});
afterAll(async () => {
  for (const close of closers) await close();
  await api.close();
});

/** The same app with some services replaced (a moved clock, another configuration), on its own port. */
async function appWith(overrides: Partial<Services>): Promise<Api> {
  const server: Server = createApp({ ...api.services, ...overrides }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => void server.close());
  return { ...api, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function receiver(): Promise<Receiver> {
  const r = await new Receiver([]).start();
  closers.push(() => r.close());
  return r;
}

async function session(p: Project, body: Record<string, unknown>) {
  const res = await call(p, 'POST', `${DP}/compliance/sessions`, { body });
  expect(res.status).toBe(201);
  return res.json as { sessionId: string; token: string; expiresAt: string };
}

const verify = (
  target: Api,
  token: string | undefined,
  body: unknown = { currency: 'EUR' },
  headers: Record<string, string> = {},
) =>
  call({ ...target, apiKey: '' }, 'POST', `${DP}/compliance/verification`, {
    body,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });

const expectError = (res: Awaited<ReturnType<typeof call>>, status: number, error: string | RegExp) => {
  expect([res.status, res.json]).toEqual([
    status,
    expect.objectContaining({
      error: typeof error === 'string' ? error : expect.stringMatching(error),
      traceId: expect.any(String),
    }),
  ]);
};

test('sessions, create-or-resume, and every status code of POST /compliance/verification', async () => {
  const p = await newProject(api, 'compliance');
  const { token, expiresAt, sessionId } = await session(p, {
    customerId: 'cus-1',
    account: '0x00000000000000000000000000000000000000a1',
    email: 'ada@example.com',
    country: 'DE',
  });
  expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
  expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000);

  const first = await verify(api, token);
  expect(first.status).toBe(200);
  expect(first.headers.get('cache-control')).toBe('no-store');
  expect(first.json).toEqual({
    id: expect.any(String),
    status: 'pending',
    expiresAt: expect.any(String),
    nextAction: { type: 'hosted', url: expect.stringContaining('/compliance/sandbox/hosted/'), presentation: 'iframe' },
  });
  // Resume: the same verification, a fresh short-lived link (never stored).
  const second = await verify(api, token);
  expect(second.json.id).toBe(first.json.id);
  expect(second.json.nextAction.url).not.toBe(first.json.nextAction.url);
  expect((await api.db.query('SELECT count(*)::int AS n FROM verifications WHERE id = $1', [first.json.id]))[0].n).toBe(
    1,
  );
  expect(
    JSON.stringify(await api.db.query('SELECT * FROM verifications WHERE id = $1', [first.json.id])),
  ).not.toContain('/sandbox/hosted/');

  // 400: bad bodies.
  for (const body of [{}, { currency: 'GBP' }, { currency: 'EUR', customerId: 'cus-2' }])
    expectError(await verify(api, token, body), 400, /^body/);
  // 401: missing, malformed, expired (the clock is moved, not slept), revoked; and an API key instead of a bearer.
  expectError(await verify(api, undefined), 401, 'Missing or malformed bearer token');
  expectError(await verify(api, 'not-a-jwt'), 401, 'Missing or malformed bearer token');
  expectError(
    await verify(api, undefined, { currency: 'EUR' }, { 'x-api-key': p.apiKey }),
    401,
    'API keys are not accepted on this route: send the customer session bearer',
  );
  const later = await appWith({ clock: () => new Date(Date.now() + 16 * 60_000) });
  expectError(await verify(later, token), 401, 'Session expired');
  const almost = await appWith({ clock: () => new Date(Date.now() + 14 * 60_000) });
  expect((await verify(almost, token)).status).toBe(200);
  const forged = `${token.slice(0, -4)}AAAA`;
  expectError(await verify(api, forged), 401, 'Missing or malformed bearer token');

  // 403: the bearer of another customer for the same account; the provider refusing the customer.
  const other = await session(p, { customerId: 'cus-2', account: '0x00000000000000000000000000000000000000A1' });
  expectError(await verify(api, other.token), 403, 'Session does not match the customer');
  const refused = await session(p, { customerId: 'cus-3', country: 'KP' });
  expectError(await verify(api, refused.token), 403, /does not verify customers from KP/);
  // 502 and 500: the sandbox's magic e-mail addresses.
  expectError(
    await verify(api, (await session(p, { customerId: 'cus-4', email: 'provider-error@sandbox.test' })).token),
    502,
    'The provider rejected the request',
  );
  expectError(
    await verify(api, (await session(p, { customerId: 'cus-5', email: 'internal-error@sandbox.test' })).token),
    500,
    'Failed to create the verification session',
  );
  // 503: no provider, or sessions paused.
  expectError(
    await verify(await appWith({ compliance: undefined }), token),
    503,
    'No verification provider is configured',
  );
  expectError(
    await verify(
      await appWith({
        config: { ...api.services.config, compliance: { ...api.services.config.compliance, paused: true } },
      }),
      token,
    ),
    503,
    'Verification sessions are paused',
  );

  // Revocation.
  expect((await call(p, 'DELETE', `${DP}/compliance/sessions/${sessionId}`)).status).toBe(200);
  expectError(await verify(api, token), 401, 'Session revoked');
  // Minting validates its body too.
  expect((await call(p, 'POST', `${DP}/compliance/sessions`, { body: { customerId: '' } })).status).toBe(400);
  expect(
    (await call(p, 'POST', `${DP}/compliance/sessions`, { body: { customerId: 'x', role: 'admin' } })).status,
  ).toBe(400);
});

test('needs review, then the reviewer approves: pending without a link meanwhile, completed after, each change a webhook', async () => {
  const p = await newProject(api, 'review');
  const r = await receiver();
  await subscribe(p, r, ['verification-updated']);
  const { token } = await session(p, { customerId: 'cus-review' });
  const link = (await verify(api, token, { currency: 'USD' })).json.nextAction.url as string;

  const page = await fetch(link);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain(
    "frame-ancestors 'self' http://localhost:* http://127.0.0.1:*",
  );
  expect(await page.text()).toContain('Needs review');
  const review = await fetch(`${link}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'review' }),
  });
  const { applicantId, state } = (await review.json()) as { applicantId: string; state: string };
  expect(state).toBe('in_review');

  await waitFor(
    'in review recorded',
    async () => (await verify(api, token, { currency: 'USD' })).json.nextAction === undefined,
    20_000,
  );
  expect((await verify(api, token, { currency: 'USD' })).json).toEqual({
    id: expect.any(String),
    status: 'pending',
    expiresAt: expect.any(String),
  });
  // Nothing left for the customer: a review decision comes from the reviewer, not the page.
  expect(
    (
      await fetch(`${link}/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'review' }),
      })
    ).status,
  ).toBe(409);

  const approved = await call(p, 'POST', `${DP}/compliance/sandbox/applicants/${applicantId}/review`, {
    body: { decision: 'approve' },
  });
  expect(approved.json).toEqual({ applicantId, state: 'approved' });
  await waitFor(
    'completed',
    async () => (await verify(api, token, { currency: 'USD' })).json.status === 'completed',
    20_000,
  );
  await waitFor('two webhooks', async () => r.accepted.size === 2, 20_000);
  const payloads = [...r.accepted.values()].map((d) => d.json.data);
  expect(payloads).toEqual([
    expect.objectContaining({
      customerId: 'cus-review',
      currency: 'USD',
      provider: 'sandbox',
      status: 'pending',
      inReview: true,
      stale: false,
    }),
    expect.objectContaining({ customerId: 'cus-review', currency: 'USD', status: 'completed', inReview: false }),
  ]);
  expect(
    [...r.accepted.values()].every((d) => d.verifiedWith.length === 1 && d.json.type === 'verification-updated'),
  ).toBe(true);
  // Another project cannot act on this applicant; a forged callback is refused.
  const stranger = await newProject(api, 'stranger');
  expect(
    (
      await call(stranger, 'POST', `${DP}/compliance/sandbox/applicants/${applicantId}/review`, {
        body: { decision: 'reject' },
      })
    ).status,
  ).toBe(404);
  const forged = await call(p, 'POST', `${DP}/compliance/callbacks/sandbox`, {
    body: { id: 'sbx_evt_forged', applicantId, state: 'declined', occurredAt: new Date().toISOString() },
    headers: { 'sandbox-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
  });
  expectError(forged, 401, 'Invalid callback signature');
  expect((await verify(api, token, { currency: 'USD' })).json.status).toBe('completed');
});

test('durability: the worker killed during review, the decision arrives while it is down; the status ends right, one webhook', async () => {
  const p = await newProject(api, 'durable-review');
  const r = await receiver();
  await subscribe(p, r, ['verification-updated']);
  const { token } = await session(p, { customerId: 'cus-durable' });
  const link = (await verify(api, token)).json.nextAction.url as string;
  const { applicantId } = (await (
    await fetch(`${link}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'review' }),
    })
  ).json()) as { applicantId: string };
  await waitFor('in review delivered', async () => r.accepted.size === 1, 20_000);

  killWorkers(api.env);
  const rejected = await call(p, 'POST', `${DP}/compliance/sandbox/applicants/${applicantId}/review`, {
    body: { decision: 'reject' },
  });
  expect(rejected.json.state).toBe('declined'); // the callback was accepted with no worker running
  expect((await verify(api, token)).json.status).toBe('pending'); // not applied yet: the lifecycle applies it
  await startWorker(api.env);

  await waitFor('failed', async () => (await verify(api, token)).json.status === 'failed', 40_000);
  await waitFor('decision delivered', async () => r.accepted.size === 2, 40_000);
  const decisions = r.requests.filter((d) => d.json.data.status === 'failed');
  expect(new Set(decisions.map((d) => d.id)).size).toBe(1);
  expect([...r.accepted.values()].map((d) => d.json.data.status)).toEqual(['pending', 'failed']);
});

test('a verification left pending past the configured time is marked stale and reported once', async () => {
  const p = await newProject(api, 'stale');
  const r = await receiver();
  await subscribe(p, r, ['verification-updated']);
  const shortWait = await appWith({
    config: { ...api.services.config, compliance: { ...api.services.config.compliance, pendingTimeoutSeconds: 1 } },
  });
  const { token } = await session(p, { customerId: 'cus-stale' });
  const { id } = (await verify(shortWait, token)).json;
  await waitFor('stale reported', async () => r.accepted.size === 1, 20_000);
  expect([...r.accepted.values()][0].json.data).toMatchObject({
    verificationId: id,
    status: 'pending',
    inReview: false,
    stale: true,
  });
  expect((await api.db.query('SELECT stale_at FROM verifications WHERE id = $1', [id]))[0].stale_at).not.toBeNull();
  // Still waiting: the customer can finish, and the decision clears the mark.
  const link = (await verify(api, token)).json.nextAction.url as string;
  await fetch(`${link}/decision`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approve' }),
  });
  await waitFor('completed', async () => (await verify(api, token)).json.status === 'completed', 20_000);
  await waitFor('decision reported', async () => r.accepted.size === 2, 20_000);
  expect([...r.accepted.values()][1].json.data).toMatchObject({ status: 'completed', stale: false });
});
