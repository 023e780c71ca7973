import { emitEvent } from '../../src/webhooks/event-store';
import { Api, call, startApi } from '../support/harness';
import { newProject, type Project } from '../support/projects';
import { simulate } from '../support/widget-sessions';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function ingestToken(p: Project, body: unknown = {}) {
  const res = await call(p, 'POST', '/analytics/ingest-token', { body });
  expect(res.status).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.json.token as string;
}
const send = (token: string | undefined, events: unknown[], headers: Record<string, string> = {}) =>
  call({ ...api, apiKey: '' }, 'POST', '/analytics/events', {
    body: { events },
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });

test('a few hundred events from simulated sessions give the funnel the test computes; a retried batch changes nothing', async () => {
  const p = await newProject(api, 'analytics');
  const token = await ingestToken(p);
  const t0 = Date.parse('2026-11-01T00:00:00Z');
  const sim = simulate(t0, p.projectId.slice(0, 8));
  expect(sim.events.length).toBeGreaterThan(300);
  // The widget sends in batches; one is retried whole.
  const batches = [sim.events.slice(0, 150), sim.events.slice(150, 300), sim.events.slice(300)];
  for (const batch of batches) {
    const res = await send(token, batch, { origin: 'https://app.example.com' });
    expect(res.json).toEqual({ accepted: batch.length, duplicates: 0, rejected: [], dropped: [], attributed: true });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  }
  const retry = await send(token, batches[1]);
  expect(retry.json).toMatchObject({ accepted: 150, duplicates: 150 });
  const [{ n }] = await api.db.query('SELECT count(*)::int AS n FROM analytics_events WHERE project_id = $1', [
    p.projectId,
  ]);
  expect(n).toBe(sim.events.length);

  // Deposits the widget saw, joined to what the processor reported (its webhook events for those deposit ids).
  const report = (type: 'bridge-complete' | 'deposit-rejected', depositId: string) =>
    api.db.transaction((tx) =>
      emitEvent(tx, { projectId: p.projectId, type, idempotencyKey: `${type}:${depositId}`, depositId, payload: {} }),
    );
  for (const id of sim.depositIds.slice(0, 5)) await report('bridge-complete', id);
  for (const id of sim.depositIds.slice(5, 7)) await report('deposit-rejected', id);

  const range = `from=${new Date(t0 - 60_000).toISOString()}&to=${new Date(t0 + 86_400_000).toISOString()}`;
  const funnel = await call(p, 'GET', `/analytics/funnel?${range}`);
  expect(funnel.status).toBe(200);
  expect(funnel.json).toMatchObject(sim.expected);
  expect(funnel.json.deposits).toEqual({
    observed: 10,
    byOutcome: [
      { widget: 'completed', processed: 'completed', count: 5 },
      { widget: 'completed', processed: 'failed', count: 2 },
      { widget: 'completed', processed: 'unknown', count: 3 },
    ],
  });
  // Filtered by funding method: the transfer sessions alone.
  const transfer = (await call(p, 'GET', `/analytics/funnel?${range}&fundingMethod=transfer`)).json;
  expect(transfer.sessions).toBe(25);
  expect(transfer.steps.map((s: { step: string }) => s.step)).toEqual([
    'method',
    'amount',
    'transfer_address',
    'transfer_tracking',
  ]);
  // The withdraw modal is its own funnel.
  expect((await call(p, 'GET', `/analytics/funnel?${range}&modal=withdraw`)).json).toMatchObject({
    sessions: 0,
    outcomes: {},
  });
  // Another project sees none of it.
  expect((await call(await newProject(api, 'other'), 'GET', `/analytics/funnel?${range}`)).json).toMatchObject({
    sessions: 0,
    steps: [],
  });
  expect((await call(p, 'GET', `/analytics/funnel?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z`)).status).toBe(
    400,
  );
});

test('bad events are rejected with reasons while the good ones in the batch are kept; bad target fields are dropped alone', async () => {
  const p = await newProject(api, 'analytics-bad');
  const token = await ingestToken(p);
  const base = {
    session_id: 'sx',
    modal: 'deposit',
    widget_version: '0.9.1',
    timestamp: Date.now(),
    session_properties: {},
    funding_method: 'wallet',
  };
  const res = await send(token, [
    { ...base, event: 'deposit_modal_step_open', step: 'amount' },
    { ...base, event: 'deposit_modal_ui_outcome', outcome: 'failed', step: 'quote', reason: 'quote_expired' },
    { ...base, event: 'deposit_modal_ui_outcome', outcome: 'abandoned', step: null },
    { ...base, event: 'mystery_event' },
    {
      ...base,
      event: 'withdraw_modal_handoff',
      source_chain: 'eip155:8453',
      source_token: '0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913',
    },
    {
      ...base,
      event: 'withdraw_modal_handoff',
      source_chain: 'eip155:8453',
      source_token: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      target_chain: 'eip155:zero',
      target_token: 'NotAToken',
      amount_usd: '25',
    },
  ]);
  expect(res.status).toBe(200);
  expect(res.json.accepted).toBe(2);
  expect(
    res.json.rejected.map((r: { index: number; problems: { field: string }[] }) => [
      r.index,
      r.problems.map((x) => x.field),
    ]),
  ).toEqual([
    [1, ['retryable']],
    [2, ['step']],
    [3, ['event']],
    [4, ['source_token']],
  ]);
  expect(res.json.dropped).toEqual([{ index: 5, fields: ['target_chain', 'target_token'] }]);
  const [row] = await api.db.query(
    "SELECT data FROM analytics_events WHERE project_id = $1 AND event = 'withdraw_modal_handoff'",
    [p.projectId],
  );
  expect(row.data).toEqual({
    ...base,
    event: 'withdraw_modal_handoff',
    source_chain: 'eip155:8453',
    source_token: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    amount_usd: '25',
  });
  // Whole-batch problems are a 400.
  expect((await send(token, [])).status).toBe(400);
  expect(
    (
      await send(
        token,
        Array.from({ length: 501 }, () => ({ ...base, event: 'deposit_modal_step_open', step: 'amount' })),
      )
    ).status,
  ).toBe(400);
});

test('tokens: without one events are stored unattributed; a bad one says so; a session-bound one refuses other sessions; CORS preflight', async () => {
  const p = await newProject(api, 'analytics-tokens');
  const e = (session: string) => ({
    session_id: session,
    modal: 'deposit',
    widget_version: '0.9.1',
    timestamp: Date.now(),
    session_properties: {},
    funding_method: null,
    event: 'deposit_modal_step_open',
    step: `s_${session}`,
  });
  expect((await send(undefined, [e('anon')])).json).toEqual({
    accepted: 1,
    duplicates: 0,
    rejected: [],
    dropped: [],
    attributed: false,
  });
  expect(
    (await api.db.query("SELECT project_id FROM analytics_events WHERE session_id = 'anon'"))[0].project_id,
  ).toBeNull();
  expect((await send('forged.token.value', [e('forged')])).json).toMatchObject({
    accepted: 1,
    attributed: false,
    tokenError: expect.any(String),
  });
  const bound = await ingestToken(p, { sessionId: 'mine' });
  const res = await send(bound, [e('mine'), e('theirs')]);
  expect(res.json).toMatchObject({
    accepted: 1,
    attributed: true,
    rejected: [{ index: 1, problems: [{ field: 'session_id' }] }],
  });
  // An ingest token is not an API key, and a report link is not an ingest token.
  expect((await call({ ...p, apiKey: bound }, 'GET', '/analytics/funnel')).status).toBe(401);

  const preflight = await fetch(`${api.url}/analytics/events`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://shop.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
});

test('the report page: by API key or a short-lived link, Chart.js served from this origin', async () => {
  const p = await newProject(api, 'analytics-page');
  const page = await fetch(`${api.url}/analytics/report`, { headers: { 'x-api-key': p.apiKey } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toContain('text/html');
  expect(await page.text()).toContain('<script src="/analytics/assets/chart.umd.min.js"></script>');
  expect((await fetch(`${api.url}/analytics/report`)).status).toBe(401);
  const link = await call(p, 'POST', '/analytics/report-link', { body: { modal: 'deposit' } });
  expect(link.status).toBe(201);
  expect((await fetch(link.json.url)).status).toBe(200);
  expect((await fetch(`${api.url}/analytics/report?token=nope`)).status).toBe(401);
  const chart = await fetch(`${api.url}/analytics/assets/chart.umd.min.js`);
  expect(chart.headers.get('content-type')).toContain('javascript');
  expect((await chart.text()).length).toBeGreaterThan(100_000);
});
