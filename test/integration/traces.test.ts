import fs from 'node:fs';
import readline from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { spawnEntry, stopProcess, waitFor } from '../../src/dev/processes';
import { BASE_USDC, TX } from '../support/fixtures';
import { freePort } from '../support/global-setup';
import { Api, call, ingest, killWorkers, startApi, startWorker } from '../support/harness';
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
let apiProcess: ChildProcess;
let worker: ChildProcess;
/** the traced API's log lines */
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  api = await startApi();
  await otlp.start();
  const env = {
    ...api.env.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  // The run's worker is not traced, and would take tasks and first attempts the traced one must: one traced worker
  // runs instead while this suite does (the run's is restarted after it).
  killWorkers(api.env);
  worker = spawnEntry('worker', env);
  fs.appendFileSync(api.env.workerPidFile, `${worker.pid}\n`);
  const port = await freePort();
  apiProcess = spawnEntry('api', { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }, [
    'ignore',
    'pipe',
    'inherit',
  ]);
  readline.createInterface({ input: apiProcess.stdout! }).on('line', (line) => logs.push(JSON.parse(line)));
  traced = { ...api, url: `http://127.0.0.1:${port}` };
  await waitFor('traced API', async () => (await fetch(`${traced.url}/health`)).ok, 60_000);
}, 90_000);

afterAll(async () => {
  await stopProcess(apiProcess, 'SIGKILL');
  await stopProcess(worker, 'SIGKILL');
  startWorker(api.env);
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

/** Follows `names` down from `root`, a child each step: the names of the path found (all of them when it is whole). */
function descend(spans: ReceivedSpan[], root: ReceivedSpan, names: string[]): { found: string[]; last: ReceivedSpan } {
  let last = root;
  const found: string[] = [];
  for (const name of names) {
    const next = children(spans, last, name)[0];
    if (!next) break;
    found.push(name);
    last = next;
  }
  return { found, last };
}

/** The root (server) span of the trace named `name`, once exported. */
const rootNamed = (name: string) =>
  otlp.spans.find((s) => !s.parentSpanId && s.kind === SERVER && s.name === name && s.service.endsWith('-api'));

test('a webhook test event: the request, its event row, the first attempt, the retry workflow and both POSTs are one trace', async () => {
  const p = await newProject(traced, 'traced');
  // The first attempt fails, so the delivery passes through the outbox to a retry workflow and its activity.
  const r = await receiver((_d, nth) => (nth === 1 ? 503 : 200));
  await subscribe(p, r);
  const res = await call(p, 'POST', '/deposit-processor/webhooks/test', { body: { type: 'deposit-received' } });
  expect(res.status).toBe(200);
  const traceId = res.headers.get('x-trace-id')!;
  await waitFor('the retry delivered', async () => r.accepted.has(res.json.eventId), 30_000);

  const retryPath = [
    'webhook first attempt',
    'outbox start deliverWebhook',
    'StartWorkflow:deliverWebhook',
    'RunWorkflow:deliverWebhook',
    'StartActivity:attemptWebhook',
    'RunActivity:attemptWebhook',
    'POST',
  ];
  const root = () => otlp.trace(traceId).find((s) => !s.parentSpanId);
  await waitFor(
    'the trace exported',
    async () => !!root() && descend(otlp.trace(traceId), root()!, retryPath).found.length === retryPath.length,
    30_000,
  );
  const spans = otlp.trace(traceId);
  expect(root()).toMatchObject({
    kind: SERVER,
    name: 'POST /deposit-processor/webhooks/test',
    service: 'intent-orchestrator-api',
  });
  // Every span of the trace descends from the request's.
  const ids = new Set(spans.map((s) => s.spanId));
  expect(spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
  // The request's queries, the event row's among them.
  expect(children(spans, root()!, 'pg.query:*').length).toBeGreaterThan(0);

  const { found, last } = descend(spans, root()!, retryPath);
  expect(found).toEqual(retryPath);
  expect(last).toMatchObject({ kind: CLIENT, service: 'intent-orchestrator-worker' });
  // The first attempt's POST (answered 503) is the first attempt's own child.
  const [first] = children(spans, descend(spans, root()!, retryPath.slice(0, 1)).last, 'POST');
  expect(first).toMatchObject({ kind: CLIENT, attributes: expect.objectContaining({ 'http.status_code': 503 }) });
  expect(last.attributes).toMatchObject({ 'http.status_code': 200 });
  // The activity's queries are in the trace too.
  expect(children(spans, descend(spans, root()!, retryPath.slice(0, 6)).last, 'pg.query:*').length).toBeGreaterThan(0);

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
});

test('an intent submit and its fill: the lifecycle started through the outbox runs in the submit trace, the fill signal in its own', async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(traced, [
    {
      id: `traced-${account.address}`,
      type: 'balance',
      chainId: 8453,
      account: account.address,
      token: BASE_USDC,
      locked: '5000000',
      blockNumber: '1',
    },
  ]);
  const intentId = await submitOwnIntent(traced, account);
  // Its fill and its claim complete the lifecycle, which ends its workflow span.
  const fill = await ingest(traced, [
    {
      id: `traced-fill-${intentId}`,
      type: 'fill',
      chainId: 42161,
      nonce: intentId,
      transactionHash: TX(1),
      timestamp: Math.floor(Date.now() / 1000),
    },
  ]);
  expect(fill.status).toBe(200);
  await ingest(traced, [
    {
      id: `traced-claim-${intentId}`,
      type: 'claim',
      chainId: 8453,
      nonce: intentId,
      transactionHash: TX(2),
      timestamp: 1_800_000_100,
    },
  ]);

  const submitPath = [
    'outbox start intentLifecycle',
    'StartWorkflow:intentLifecycle',
    'RunWorkflow:intentLifecycle',
    'StartActivity:recordTransition',
    'RunActivity:recordTransition',
    'pg.query:*',
  ];
  const fillPath = ['outbox signal fill', 'SignalWithStartWorkflow:intentLifecycle', 'HandleSignal:fill'];
  const submitRoot = () => rootNamed('POST /intent-operations');
  const fillRoot = () => otlp.spans.find((s) => !s.parentSpanId && s.traceId === fill.headers.get('x-trace-id'));
  const whole = (root: () => ReceivedSpan | undefined, path: string[]) =>
    !!root() && descend(otlp.trace(root()!.traceId), root()!, path).found.length === path.length;
  await waitFor('both traces exported', async () => whole(submitRoot, submitPath) && whole(fillRoot, fillPath), 60_000);

  expect(descend(otlp.trace(submitRoot()!.traceId), submitRoot()!, submitPath).found).toEqual(submitPath);
  expect(fillRoot()).toMatchObject({ kind: SERVER, name: 'POST /indexer/events' });
  const { found, last } = descend(otlp.trace(fillRoot()!.traceId), fillRoot()!, fillPath);
  expect(found).toEqual(fillPath);
  expect(last.service).toBe('intent-orchestrator-worker');
});
