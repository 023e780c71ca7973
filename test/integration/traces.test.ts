import fs from 'node:fs';
import readline from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { spawnEntry, stopProcess, waitFor } from '../../src/dev/processes';
import { TX } from '../support/fixtures';
import { freePort } from '../support/global-setup';
import { Api, call, fundedAccount, ingest, startApi } from '../support/harness';
import { submitOwnIntent } from '../support/intents';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { newProject, subscribe } from '../support/projects';
import { suiteReceivers } from '../support/receiver';

/**
 * Tracing end to end (docs/tracing.md): an API and a worker process exporting to an OTLP/HTTP receiver in this
 * process, their batches sent every 100 ms. Each request is one trace, from its server span through the outbox
 * rows it writes, the workflow starts and signals they become, the workflow and activity spans, PostgreSQL queries
 * and the webhook POSTs.
 */
const otlp = new OtlpReceiver();
const receiver = suiteReceivers();
let api: Api;
/** the same project, through the traced API process */
let traced: Api;
/** the same, through a traced API process that cannot reach Temporal: the sweeper performs its outbox rows */
let offline: Api;
const processes: ChildProcess[] = [];
/** the log lines of the traced API and of the one without Temporal */
const logs: Record<string, unknown>[] = [];
const offlineLogs: Record<string, unknown>[] = [];

beforeAll(async () => {
  // A database and task queue of its own, with no worker but the traced one below, which takes every task and first
  // attempt of this suite.
  api = await startApi({ ownDatabase: true });
  await otlp.start();
  const env = {
    ...api.env.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    // Which process performs a row is asserted: a request's own delivery, slowed past a 1 s grace on a busy machine,
    // would be the sweeper's.
    OUTBOX_GRACE_SECONDS: '5',
  };
  const worker = spawnEntry('worker', env);
  fs.appendFileSync(api.env.workerPidFile, `${worker.pid}\n`);
  processes.push(worker);
  const startApiProcess = async (extra: Record<string, string>, lines: Record<string, unknown>[]): Promise<Api> => {
    const port = await freePort();
    const child = spawnEntry('api', { ...env, ...extra, PORT: String(port), HOST: '127.0.0.1' }, [
      'ignore',
      'pipe',
      'inherit',
    ]);
    processes.push(child);
    // Log lines are JSON; anything else on stdout is not a log line.
    readline
      .createInterface({ input: child.stdout! })
      .on('line', (line) => line.startsWith('{') && lines.push(JSON.parse(line)));
    const url = `http://127.0.0.1:${port}`;
    await waitFor('traced API', async () => (await fetch(`${url}/health`)).ok, 60_000);
    return { ...api, url };
  };
  traced = await startApiProcess({ LOG_LEVEL: 'info' }, logs);
  // Its quotes' claim window is a minute: their lifecycles are still running when a test's late events reach them.
  offline = await startApiProcess(
    { LOG_LEVEL: 'warn', TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, INTENT_CLAIM_WINDOW_SECONDS: '60' },
    offlineLogs,
  );
}, 120_000);

afterAll(async () => {
  for (const child of processes) await stopProcess(child, 'SIGKILL');
  await otlp.close();
  await api.close();
});

const SERVER = 2;
const CLIENT = 3;

/** The span's children named `name` (a name ending in `*` is a prefix), in the order they were exported. */
const children = (spans: ReceivedSpan[], parent: ReceivedSpan, name: string) =>
  spans.filter(
    (s) =>
      s.parentSpanId === parent.spanId && (name.endsWith('*') ? s.name.startsWith(name.slice(0, -1)) : s.name === name),
  );

/** The longest chain of spans below `from` named `names`, a child each step (all of them when the path is whole). */
function descend(spans: ReceivedSpan[], from: ReceivedSpan, names: string[]): ReceivedSpan[] {
  let best: ReceivedSpan[] = [];
  for (const child of names.length ? children(spans, from, names[0]) : []) {
    const chain = [child, ...descend(spans, child, names.slice(1))];
    if (chain.length > best.length) best = chain;
  }
  return best;
}

/** The names of a whole path's spans (a name ending in `*` as a prefix). */
const named = (names: string[]) =>
  names.map((n) => (n.endsWith('*') ? expect.stringMatching(`^${n.slice(0, -1)}`) : n));

/** The root span of a trace, once exported. */
const rootOf = (traceId: string | null) => otlp.spans.find((s) => !s.parentSpanId && s.traceId === traceId);

/** Whether the trace has the whole path below its root. */
const whole = (traceId: string | null, path: string[]) =>
  !!rootOf(traceId) && descend(otlp.trace(traceId!), rootOf(traceId)!, path).length === path.length;

test('a webhook test event: the request, its event row, the first attempt, the retry workflow and both POSTs are one trace; a resend is its own', async () => {
  const p = await newProject(traced, 'traced');
  // The first attempt fails, so the delivery passes through the outbox to a retry workflow and its activity.
  const r = await receiver((_d, nth) => (nth === 1 ? 503 : 200));
  await subscribe(p, r);
  const res = await call(p, 'POST', '/deposit-processor/webhooks/test', { body: { type: 'deposit-received' } });
  expect(res.status).toBe(200);
  const traceId = res.headers.get('x-trace-id')!;
  const retryPath = [
    'webhook first attempt',
    'outbox start deliverWebhook',
    'StartWorkflow:deliverWebhook',
    'RunWorkflow:deliverWebhook',
    'StartActivity:attemptWebhook',
    'RunActivity:attemptWebhook',
    'POST',
  ];
  await waitFor('the retry delivered and traced', async () => whole(traceId, retryPath), 30_000);
  expect(r.accepted.has(res.json.eventId)).toBe(true);

  const spans = otlp.trace(traceId);
  const root = rootOf(traceId)!;
  expect(root).toMatchObject({
    kind: SERVER,
    name: 'POST /deposit-processor/webhooks/test',
    service: 'intent-orchestrator-api',
  });
  // Every span of the trace descends from the request's.
  const ids = new Set(spans.map((s) => s.spanId));
  expect(spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
  // The request's queries, the event row's insert among them.
  expect(children(spans, root, 'pg.query:INSERT*').length).toBeGreaterThan(0);

  const chain = descend(spans, root, retryPath);
  expect(chain.map((s) => s.name)).toEqual(retryPath);
  const [attempt, , , , , activity, retry] = chain;
  // The first attempt (answered 503) and the retry (200), each a client span of the worker.
  expect(children(spans, attempt, 'POST')).toEqual([
    expect.objectContaining({
      kind: CLIENT,
      service: 'intent-orchestrator-worker',
      attributes: expect.objectContaining({ 'http.status_code': 503 }),
    }),
  ]);
  expect(retry).toMatchObject({
    kind: CLIENT,
    service: 'intent-orchestrator-worker',
    attributes: expect.objectContaining({ 'http.status_code': 200 }),
  });
  // The activity's queries are in the trace too.
  expect(children(spans, activity, 'pg.query:*').length).toBeGreaterThan(0);

  // The request's log line carries the trace's id.
  await waitFor(
    'the request logged',
    async () => logs.some((l) => l.msg === 'request' && l.traceId === traceId),
    10_000,
  );
  expect(logs.find((l) => l.msg === 'request' && l.traceId === traceId)).toMatchObject({
    route: '/deposit-processor/webhooks/test',
    status: 200,
  });

  // A resend opens a new round, whose first attempt is in the resend's trace.
  const eventPath = `/deposit-processor/webhooks/events/${res.json.eventId}`;
  await waitFor('delivered', async () => (await call(p, 'GET', eventPath)).json.status === 'delivered', 10_000);
  const resend = await call(p, 'POST', `${eventPath}/resend`);
  expect(resend.status).toBe(202);
  const resendTrace = resend.headers.get('x-trace-id');
  expect(resendTrace).not.toBe(traceId);
  await waitFor('the resend traced', async () => whole(resendTrace, ['webhook first attempt', 'POST']), 30_000);
  const [resent, post] = descend(otlp.trace(resendTrace!), rootOf(resendTrace)!, ['webhook first attempt', 'POST']);
  expect(resent.service).toBe('intent-orchestrator-worker');
  expect(post.attributes).toMatchObject({ 'http.status_code': 200 });
}, 120_000);

test("an intent's submit and its events: each request's outbox rows, performed in-process or by the sweeper, continue its trace into the lifecycle", async () => {
  const account = await fundedAccount(traced);
  // Submitted where Temporal is out of reach: the worker's sweeper starts the lifecycle from the outbox row. Its
  // deadline is close: the lifecycle's start delay ends then, and it reads its record in the submit's trace.
  const intentId = await submitOwnIntent(offline, account, Math.floor(Date.now() / 1000) + 8);
  const submit = () => otlp.spans.find((s) => !s.parentSpanId && s.name === 'POST /intent-operations')?.traceId ?? null;
  const WORKER = 'intent-orchestrator-worker';
  const submitPath = [
    'outbox start intentLifecycle',
    'StartWorkflow:intentLifecycle',
    'RunWorkflow:intentLifecycle',
    'StartActivity:readRecord',
    'RunActivity:readRecord',
    'pg.query:*',
  ];
  // (The API's own attempt, which fails, has spans of its own in the trace: the sweeper's are the worker's.)
  const swept = () => otlp.trace(submit()!).find((s) => s.name === submitPath[0] && s.service === WORKER);
  await waitFor(
    'the sweeper started the lifecycle',
    async () => !!swept() && children(otlp.trace(submit()!), swept()!, submitPath[1]).length > 0,
    30_000,
  );

  // The fill, before the deadline, is recorded and wakes nothing; past the start delay, a preconfirmation from the
  // API without Temporal (the sweeper signals it) and the claim from the other (signalled at once) reach the
  // lifecycle, which then ends its workflow span.
  const event = (type: string, chainId: number, n: number, timestamp: number) => ({
    id: `traced-${type}-${intentId}`,
    type,
    chainId,
    nonce: intentId,
    transactionHash: TX(n),
    timestamp,
  });
  expect((await ingest(offline, [event('fill', 42161, 1, Math.floor(Date.now() / 1000))])).status).toBe(200);
  // Its run's span is exported when the run ends: that it read the fill shows in its history (the status it set).
  const lifecycleHistory = async () =>
    (await api.temporal.workflow.getHandle(`intent-${intentId}`).fetchHistory()).events ?? [];
  await waitFor(
    'the lifecycle read its record',
    async () => (await lifecycleHistory()).some((e) => e.upsertWorkflowSearchAttributesEventAttributes),
    60_000,
  );
  const signalPath = (name: string) => [
    `outbox signal ${name}`,
    'SignalWithStartWorkflow:intentLifecycle',
    `HandleSignal:${name}`,
  ];
  const preconfirmation = await ingest(offline, [
    { id: `traced-pre-${intentId}`, type: 'preconfirmation', chainId: 42161, nonce: intentId },
  ]);
  const preconfirmationTrace = preconfirmation.headers.get('x-trace-id');
  // Handled before the claim ends the lifecycle (a signal to an ended one is dropped).
  await waitFor(
    'the sweeper signalled the preconfirmation',
    async () => whole(preconfirmationTrace, signalPath('preconfirmation')),
    30_000,
  );
  const claim = await ingest(traced, [event('claim', 8453, 2, 1_700_000_100)]);
  expect([preconfirmation.status, claim.status]).toEqual([200, 200]);
  const claimTrace = claim.headers.get('x-trace-id');
  await waitFor(
    'the lifecycle traced',
    async () =>
      whole(submit(), submitPath) &&
      whole(preconfirmationTrace, signalPath('preconfirmation')) &&
      whole(claimTrace, signalPath('claim')),
    60_000,
  );

  expect(rootOf(submit())).toMatchObject({ kind: SERVER, service: 'intent-orchestrator-api' });
  expect(children(otlp.trace(submit()!), rootOf(submit())!, 'pg.query:*').length).toBeGreaterThan(0);
  const lifecycle = descend(otlp.trace(submit()!), rootOf(submit())!, submitPath);
  expect(lifecycle.map((s) => s.name)).toEqual(named(submitPath));
  // All in the worker: the sweeper performed the start from the row's recorded trace context.
  expect(lifecycle.map((s) => s.service)).toEqual(submitPath.map(() => WORKER));
  for (const [traceId, name, performer] of [
    [preconfirmationTrace, 'preconfirmation', WORKER],
    [claimTrace, 'claim', 'intent-orchestrator-api'],
  ] as const) {
    expect(rootOf(traceId)).toMatchObject({ kind: SERVER, name: 'POST /indexer/events' });
    const chain = descend(otlp.trace(traceId!), rootOf(traceId)!, signalPath(name));
    expect(chain.map((s) => s.name)).toEqual(signalPath(name));
    expect(chain.map((s) => s.service)).toEqual([performer, performer, WORKER]);
  }
  // The API's own start, which found no Temporal, is logged (after the answer) with the submit's trace id.
  await waitFor(
    'the deferred start logged',
    async () => offlineLogs.some((l) => /deferred to the outbox sweeper/.test(String(l.msg)) && l.traceId === submit()),
    30_000,
  );
  const deferred = offlineLogs.filter((l) => /deferred to the outbox sweeper/.test(String(l.msg)));
  expect(deferred.map((l) => l.traceId)).toContain(submit());
}, 180_000);
