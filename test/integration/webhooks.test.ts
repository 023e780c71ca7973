import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { emitEvent } from '../../src/webhooks/event-store';
import { WEBHOOK_TYPES, type WebhookType } from '../../src/webhooks/types';
import { Api, call, killWorkers, startApi, startWorker } from '../support/harness';
import { suiteReceivers } from '../support/receiver';
import { newProject, subscribe, type Project } from '../support/projects';

const DP = '/deposit-processor';
let api: Api;

beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
});
afterAll(() => api.close());

const project = (name = 'webhooks') => newProject(api, name);

const receiver = suiteReceivers();

const sendTest = async (p: Project, type: WebhookType = 'deposit-received') => {
  const res = await call(p, 'POST', `${DP}/webhooks/test`, { body: { type } });
  expect(res.status).toBe(200);
  return res.json.eventId as string;
};
const event = async (p: Project, eventId: string) => (await call(p, 'GET', `${DP}/webhooks/events/${eventId}`)).json;

async function settled(p: Project, eventId: string, status: 'delivered' | 'failed', ms = 30_000) {
  let last: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  await waitFor(`event ${eventId} ${status}`, async () => (last = await event(p, eventId)).status === status, ms);
  return last;
}

test('the CLI adds an endpoint; a test event arrives signed with the secret it printed and is listed as delivered', async () => {
  const p = await project();
  const r = await receiver();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/main/cli.ts',
      'webhooks',
      'add',
      p.projectId,
      r.url,
      '--types',
      'deposit-received,bridge-complete',
    ],
    {
      cwd: projectRoot,
      env: { ...process.env, ...api.env.env },
    },
  );
  const printed = JSON.parse(stdout.trim().split('\n').pop()!);
  expect(printed).toEqual({
    id: expect.any(String),
    url: r.url,
    types: ['deposit-received', 'bridge-complete'],
    secret: expect.stringMatching(/^whsec_/),
  });
  r.secrets.push(printed.secret);

  const eventId = await sendTest(p, 'deposit-received');
  await waitFor('test delivery', async () => r.accepted.has(eventId), 10_000);
  const got = r.accepted.get(eventId)!;
  expect(got.verifiedWith).toEqual([printed.secret]);
  expect(got.json).toEqual({
    type: 'deposit-received',
    timestamp: expect.any(String),
    data: expect.objectContaining({ account: expect.stringMatching(/^0x[0-9a-f]{40}$/), amount: '25000000' }),
    test: true,
  });

  const record = await settled(p, eventId, 'delivered');
  expect(record).toMatchObject({
    eventId,
    type: 'deposit-received',
    status: 'delivered',
    attempts: 1,
    depositId: expect.stringMatching(/^dep_test_/),
    payload: got.json.data,
    test: true,
  });
  expect(Date.parse(record.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(record.time));
  expect(record.attemptLog).toEqual([
    expect.objectContaining({ endpointId: printed.id, attempt: 1, statusCode: 200, error: null }),
  ]);

  // The endpoint's type filter: a type it did not ask for has no receiver.
  const other = await call(p, 'POST', `${DP}/webhooks/test`, { body: { type: 'bridge-failed' } });
  expect(other.status).toBe(400);
  expect(other.json).toEqual({
    error: 'No enabled webhook endpoint takes bridge-failed events',
    code: 'WEBHOOK_NO_ENDPOINT',
    traceId: expect.any(String),
  });
  // Every spec type has test data.
  for (const type of WEBHOOK_TYPES)
    expect((await call(p, 'POST', `${DP}/webhooks/test`, { body: { type } })).status).toBe(
      type === 'deposit-received' || type === 'bridge-complete' ? 200 : 400,
    );
});

test('retries: 500 three times then 200 is one delivered event with 4 attempts under one webhook-id', async () => {
  const p = await project();
  const r = await receiver((_d, nth) => (nth <= 3 ? 500 : 200));
  await subscribe(p, r);
  const eventId = await sendTest(p, 'bridge-started');
  const record = await settled(p, eventId, 'delivered');
  expect(record.attempts).toBe(4);
  expect(r.forId(eventId).map((d) => d.answer)).toEqual([500, 500, 500, 200]);
  expect(new Set(r.forId(eventId).map((d) => d.id))).toEqual(new Set([eventId]));
  expect(record.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 500, 200]);
  expect(record.attemptLog[0]).toMatchObject({
    attempt: 1,
    round: 1,
    response: '{"ok":false}',
    error: null,
    latencyMs: expect.any(Number),
  });
  expect(record.deliveries).toEqual([
    expect.objectContaining({ status: 'delivered', attempts: 4, lastError: null, nextAttemptAt: null }),
  ]);
});

test('a receiver that never answers: every attempt is recorded and the event fails after the schedule', async () => {
  const p = await project();
  const r = await receiver(() => 'hang');
  await subscribe(p, r);
  const eventId = await sendTest(p, 'bridge-delayed');
  const record = await settled(p, eventId, 'failed', 45_000);
  expect(record.attempts).toBe(4);
  expect(record.deliveredAt).toBeNull();
  expect(record.attemptLog).toHaveLength(4);
  for (const a of record.attemptLog) expect(a).toMatchObject({ statusCode: null, error: 'timed out after 2000 ms' });
  expect(r.forId(eventId)).toHaveLength(4);
});

test('410 Gone disables the endpoint at once; an endpoint failing for days is disabled; the listing says why', async () => {
  const p = await project();
  const gone = await receiver(() => 410);
  const { id } = await subscribe(p, gone);
  const eventId = await sendTest(p);
  const record = await settled(p, eventId, 'failed');
  expect(record.attempts).toBe(1);
  let endpoints = (await call(p, 'GET', `${DP}/webhooks/endpoints`)).json.endpoints;
  expect(endpoints).toEqual([
    expect.objectContaining({
      id,
      status: 'disabled',
      disabledReason: 'the receiver answered 410 Gone',
      disabledAt: expect.any(String),
    }),
  ]);
  expect((await call(p, 'POST', `${DP}/webhooks/test`, { body: { type: 'deposit-received' } })).status).toBe(400);
  // Nothing to resend to: refused, and the event's record is left as it was.
  const resend = await call(p, 'POST', `${DP}/webhooks/events/${eventId}/resend`);
  expect([resend.status, resend.json.code]).toEqual([409, 'WEBHOOK_NO_ENDPOINT']);
  expect(await event(p, eventId)).toMatchObject({ status: 'failed', attempts: 1 });

  // Enabled again and pointed at a receiver that has failed for six days: the next failure disables it.
  expect((await call(p, 'POST', `${DP}/webhooks/endpoints/${id}/enable`)).json).toMatchObject({
    status: 'enabled',
    disabledReason: null,
  });
  const failing = await receiver(() => 503);
  failing.secrets.push(...gone.secrets);
  await api.db.query("UPDATE webhook_endpoints SET url = $2, failing_since = now() - interval '6 days' WHERE id = $1", [
    id,
    failing.url,
  ]);
  const second = await sendTest(p);
  expect((await settled(p, second, 'failed')).deliveries).toEqual([
    expect.objectContaining({ status: 'failed', lastError: expect.any(String) }),
  ]);
  expect(failing.forId(second)).toHaveLength(1);
  endpoints = (await call(p, 'GET', `${DP}/webhooks/endpoints`)).json.endpoints;
  expect(endpoints[0]).toMatchObject({
    status: 'disabled',
    disabledReason: expect.stringMatching(/^every attempt failed since \d{4}-/),
  });
});

test('secret rotation: both secrets sign during the overlap', async () => {
  const p = await project();
  const r = await receiver();
  const { id, secret: old } = await subscribe(p, r);
  const rotated = await call(p, 'POST', `${DP}/webhooks/endpoints/${id}/rotate-secret`);
  expect(rotated.status).toBe(200);
  expect(rotated.json.secret).toMatch(/^whsec_/);
  expect(rotated.json.secret).not.toBe(old);
  expect(Date.parse(rotated.json.previousSecretExpiresAt)).toBeGreaterThan(Date.now());
  r.secrets.push(rotated.json.secret);
  const eventId = await sendTest(p);
  await waitFor('delivery', async () => r.accepted.has(eventId), 10_000);
  expect(r.accepted.get(eventId)!.verifiedWith).toEqual([old, rotated.json.secret]);
  expect(r.accepted.get(eventId)!.signature.split(' ')).toHaveLength(2);
  // Once the overlap is over, only the new secret signs.
  await api.db.query(
    "UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1",
    [id],
  );
  const next = await sendTest(p);
  await waitFor('delivery', async () => r.accepted.has(next), 10_000);
  expect(r.accepted.get(next)!.verifiedWith).toEqual([rotated.json.secret]);
});

test('emitting is idempotent per key: one event, one delivery, one webhook-id', async () => {
  const p = await project();
  const r = await receiver();
  await subscribe(p, r);
  const emit = () =>
    api.db.transaction((tx) =>
      emitEvent(tx, {
        projectId: p.projectId,
        type: 'deposit-received',
        idempotencyKey: 'deposit:42:received',
        depositId: '42',
        payload: { n: 1 },
      }),
    );
  const first = await emit(); // its first attempt needs no start: the worker's lease loop makes it
  const again = await emit();
  expect(again).toEqual({ eventId: first.eventId, created: false });
  await settled(p, first.eventId, 'delivered');
  expect(r.requests).toHaveLength(1);
  const list = (await call(p, 'GET', `${DP}/webhooks/events`)).json.events;
  expect(list).toHaveLength(1);
});

test('resend delivers a stored event again under its eventId; replay reopens every failed event since a time', async () => {
  const p = await project();
  // No endpoint yet: events are recorded as failed with no attempt.
  const emitted: Awaited<ReturnType<typeof emitEvent>>[] = [];
  for (let i = 0; i < 3; i++) {
    emitted.push(
      await api.db.transaction((tx) =>
        emitEvent(tx, {
          projectId: p.projectId,
          type: 'bridge-complete',
          idempotencyKey: `k${i}`,
          depositId: `d${i}`,
          payload: { i },
        }),
      ),
    );
  }
  expect(
    (
      await api.db.query(
        'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq WHERE e.project_id = $1',
        [p.projectId],
      )
    )[0].n,
  ).toBe(0);
  expect((await event(p, emitted[0].eventId)).status).toBe('failed');

  const r = await receiver();
  await subscribe(p, r);
  const since = new Date(Date.now() - 60_000).toISOString();
  const replay = await call(p, 'POST', `${DP}/webhooks/replay`, { body: { since } });
  expect(replay.status).toBe(202);
  expect(replay.json).toEqual({ message: expect.any(String), count: 3 });
  for (const e of emitted) await settled(p, e.eventId, 'delivered');
  expect(new Set(r.requests.map((d) => d.id))).toEqual(new Set(emitted.map((e) => e.eventId)));
  expect((await call(p, 'POST', `${DP}/webhooks/replay`, { body: { since } })).json.count).toBe(0);

  const resend = await call(p, 'POST', `${DP}/webhooks/events/${emitted[0].eventId}/resend`);
  expect(resend.status).toBe(202);
  expect(resend.json).toMatchObject({ eventId: emitted[0].eventId, status: 'pending' });
  await waitFor('second delivery', async () => r.forId(emitted[0].eventId).length === 2, 10_000);
  const record = await settled(p, emitted[0].eventId, 'delivered');
  expect(record.attempts).toBe(2);
  expect(record.attemptLog.map((a: { round: number }) => a.round)).toEqual([2, 3]);
  expect(r.forId(emitted[0].eventId).map((d) => JSON.parse(d.body).data)).toEqual([{ i: 0 }, { i: 0 }]);

  expect((await call(p, 'POST', `${DP}/webhooks/events/evt_unknown/resend`)).status).toBe(404);
  expect((await call(p, 'POST', `${DP}/webhooks/replay`, { body: { since: 'yesterday' } })).status).toBe(400);
});

test('listing: newest first, limit bounds, cursor paging over 200+ events while new ones arrive, filters, project isolation', async () => {
  const p = await project();
  const other = await project('other');
  const emit = (q: Project, i: number, type: WebhookType = i % 3 ? 'deposit-received' : 'bridge-failed') =>
    api.db.transaction((tx) =>
      emitEvent(tx, { projectId: q.projectId, type, idempotencyKey: `e${i}`, depositId: `dep-${i}`, payload: { i } }),
    );
  const ids: string[] = [];
  for (let i = 0; i < 230; i++) ids.push((await emit(p, i)).eventId);
  const foreign = (await emit(other, 0)).eventId;

  for (const [limit, status] of [
    [0, 400],
    [1, 200],
    [200, 200],
    [201, 400],
  ] as const) {
    const res = await call(p, 'GET', `${DP}/webhooks/events?limit=${limit}`);
    expect(res.status).toBe(status);
    if (status === 200) expect(res.json.events).toHaveLength(limit);
    else
      expect(res.json).toEqual({
        error: expect.stringContaining('query.limit'),
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ path: ['query', 'limit'] })],
        traceId: expect.any(String),
      });
  }
  const defaults = await call(p, 'GET', `${DP}/webhooks/events`);
  expect(defaults.json.events).toHaveLength(50);
  expect(defaults.json.events.map((e: { eventId: string }) => e.eventId)).toEqual(ids.slice(-50).reverse());

  // Page by 70 while new events arrive between pages: the walk sees every event that existed, once, in order.
  const seen: string[] = [];
  let cursor: string | null = null;
  let extra = 230;
  do {
    const res = await call(p, 'GET', `${DP}/webhooks/events?limit=70${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...res.json.events.map((e: { eventId: string }) => e.eventId));
    cursor = res.json.nextCursor;
    await emit(p, extra++);
  } while (cursor);
  expect(seen).toEqual([...ids].reverse());
  expect(seen).not.toContain(foreign);

  const byType = (await call(p, 'GET', `${DP}/webhooks/events?type=bridge-failed&limit=200`)).json.events;
  expect(byType.length).toBeGreaterThan(70);
  expect(byType.every((e: { type: string }) => e.type === 'bridge-failed')).toBe(true);
  expect(
    (await call(p, 'GET', `${DP}/webhooks/events?depositId=dep-7`)).json.events.map(
      (e: { payload: unknown }) => e.payload,
    ),
  ).toEqual([{ i: 7 }]);
  expect((await call(p, 'GET', `${DP}/webhooks/events?status=delivered`)).json.events).toEqual([]);
  expect((await call(p, 'GET', `${DP}/webhooks/events?status=failed&limit=1`)).json.events).toHaveLength(1);
  expect(
    (
      await call(
        p,
        'GET',
        `${DP}/webhooks/events?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      )
    ).json,
  ).toEqual({ events: [], nextCursor: null });
  expect((await call(p, 'GET', `${DP}/webhooks/events?cursor=bm9wZQ`)).status).toBe(400);
  expect((await call(p, 'GET', `${DP}/webhooks/events?sort=asc`)).status).toBe(400);

  // Another project's event is invisible: not listed, not readable, not resendable.
  expect((await call(p, 'GET', `${DP}/webhooks/events/${foreign}`)).status).toBe(404);
  expect((await call(p, 'POST', `${DP}/webhooks/events/${foreign}/resend`)).status).toBe(404);
  expect(
    (await call(other, 'GET', `${DP}/webhooks/events`)).json.events.map((e: { eventId: string }) => e.eventId),
  ).toEqual([foreign]);
});

test('endpoint routes: bad input, SSRF refusals, removal, and no secrets in the listing', async () => {
  const p = await project();
  for (const url of [
    'ftp://example.com/x',
    'not a url',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.8/hook',
    'http://[fe80::1]/hook',
    'http://user:pw@127.0.0.1/x',
  ]) {
    const res = await call(p, 'POST', `${DP}/webhooks/endpoints`, { body: { url } });
    expect([url, res.status]).toEqual([url, 400]);
    expect(res.json.error).toEqual(expect.any(String));
  }
  expect(
    (await call(p, 'POST', `${DP}/webhooks/endpoints`, { body: { url: 'http://127.0.0.1:1/x', types: ['nope'] } }))
      .status,
  ).toBe(400);
  const r = await receiver();
  const { id } = await subscribe(p, r);
  const listed = (await call(p, 'GET', `${DP}/webhooks/endpoints`)).json.endpoints;
  expect(listed).toEqual([expect.objectContaining({ id, url: r.url, types: null, status: 'enabled' })]);
  expect(JSON.stringify(listed)).not.toContain('whsec_');
  expect((await call(p, 'DELETE', `${DP}/webhooks/endpoints/${id}`)).status).toBe(200);
  expect((await call(p, 'DELETE', `${DP}/webhooks/endpoints/${id}`)).status).toBe(404);
  expect((await call(p, 'POST', `${DP}/webhooks/endpoints/not-a-uuid/enable`)).status).toBe(400);
  expect((await call(p, 'GET', `${DP}/webhooks/endpoints`)).json.endpoints).toEqual([]);
  const unauth = await call({ ...p, apiKey: 'sk_wrong' }, 'GET', `${DP}/webhooks/events`);
  expect(unauth.status).toBe(401);
  expect(unauth.json).toEqual({ error: 'Invalid API key', traceId: expect.any(String) });
});

test("a dead receiver holds a bounded share of attempts and never delays another endpoint's deliveries", async () => {
  const slow = await project('slow');
  const dead = await receiver(() => 'hang');
  await subscribe(slow, dead);
  for (let i = 0; i < api.services.config.webhooks.endpointConcurrency + 20; i++) await sendTest(slow);
  await waitFor(
    'the dead receiver saturated',
    async () => dead.open >= api.services.config.webhooks.endpointConcurrency,
    10_000,
  );

  const healthy = await project('healthy');
  const r = await receiver();
  await subscribe(healthy, r);
  const eventId = await sendTest(healthy);
  await waitFor('healthy delivery', async () => r.accepted.has(eventId), 10_000);
  expect(dead.open).toBeGreaterThan(0); // still hanging while the healthy endpoint was served
  expect(dead.maxOpen).toBeLessThanOrEqual(api.services.config.webhooks.endpointConcurrency);
});

test('durability: the worker killed with deliveries pending; after a restart each event is delivered exactly once per webhook-id', async () => {
  const p = await project('durable');
  // The first attempt of every event fails (so all are waiting on the schedule when the worker dies).
  const r = await receiver((_d, nth) => (nth === 1 ? 503 : 200));
  await subscribe(p, r);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await sendTest(p, 'deposit-refunded'));
  await waitFor('first attempts', async () => ids.every((id) => r.forId(id).length >= 1), 20_000);
  killWorkers(api.env);
  // Events emitted while no worker runs are recorded and wait for one.
  for (let i = 0; i < 5; i++) ids.push(await sendTest(p, 'deposit-refunded'));
  await startWorker(api.env);
  for (const id of ids) await settled(p, id, 'delivered', 60_000);
  // The deduplicating receiver took each event once, and no request came under an id it was not sent.
  expect([...r.accepted.keys()].sort()).toEqual([...ids].sort());
  expect(new Set(r.requests.map((d) => d.id))).toEqual(new Set(ids));
});
