import { NativeConnection, Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config';
import { Outbox } from '../../src/outbox/outbox';
import type { QueuedStart } from '../../src/outbox/store';
import { createWorkers } from '../../src/worker/workers';

afterEach(() => jest.restoreAllMocks());

/** The options each Worker.create of createWorkers received (no connection, no bundle: both are stubbed). */
async function workerOptions(env: NodeJS.ProcessEnv) {
  jest.spyOn(NativeConnection, 'connect').mockResolvedValue({} as NativeConnection);
  const create = jest.spyOn(Worker, 'create').mockResolvedValue({} as Worker);
  create.mockClear();
  const deps = {
    db: {} as DataSource,
    config: loadConfig(env),
    outbox: {} as Outbox,
    deposits: {} as never,
    rpc: { client: () => undefined },
    log: { warn: () => undefined },
  };
  await createWorkers({ address: 'localhost:7233', namespace: 'default', taskQueue: 'q', deps });
  return create.mock.calls.map(([options]) => options);
}

test('worker memory is bounded: the workflow cache holds WORKER_MAX_CACHED_WORKFLOWS workflows (500 by default), not a share of the heap', async () => {
  const [lifecycle, webhooks] = await workerOptions({});
  expect(lifecycle).toMatchObject({ taskQueue: 'q', workflowsPath: expect.any(String), maxCachedWorkflows: 500 });
  expect(webhooks).toMatchObject({
    taskQueue: expect.stringContaining('q'),
    activities: { attemptWebhook: expect.any(Function) },
  });
  expect(webhooks.workflowsPath).toBeUndefined(); // the webhook worker runs no workflows: it caches none
  expect((await workerOptions({ WORKER_MAX_CACHED_WORKFLOWS: '50' }))[0].maxCachedWorkflows).toBe(50);
  expect(() => loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '1' })).toThrow(
    /WORKER_MAX_CACHED_WORKFLOWS must be an integer between 2 and 100000/,
  );
});

test('a worker given WORKFLOW_BUNDLE loads that bundle rather than bundling workflows/ at its start', async () => {
  const [lifecycle] = await workerOptions({ WORKFLOW_BUNDLE: '/tmp/workflows.js' });
  expect(lifecycle.workflowBundle).toEqual({ codePath: '/tmp/workflows.js' });
  expect(lifecycle.workflowsPath).toBeUndefined();
});

test('worker memory is bounded: while Temporal does not answer, a process holds at most OUTBOX_MAX_PENDING_STARTS starts and leaves the others to the sweeper', async () => {
  // Temporal unreachable: every start hangs until it is answered by hand below.
  const answers: (() => void)[] = [];
  const temporal = {
    workflow: { start: () => new Promise<void>((resolve) => answers.push(resolve)) },
    connection: {},
  } as unknown as Client;
  const db = { query: jest.fn(async () => []) } as unknown as DataSource;
  const outbox = new Outbox(db, temporal, 'q', { maxAttempts: 10, maxPendingStarts: 3, owners: async () => new Map() });
  const start = (n: number): QueuedStart => ({
    workflowId: `wf-${n}`,
    workflowType: 'deliverWebhook',
    args: [],
    searchAttributes: {},
    summary: '',
  });

  const deferred: unknown[] = [];
  const handedOff = Array.from({ length: 10 }, (_, n) => outbox.startSoon(start(n), (err) => deferred.push(err)));
  expect(outbox.pendingStarts).toBe(3);
  expect(deferred).toHaveLength(7); // told at once, their rows left to the sweeper
  expect(String(deferred[0])).toMatch(
    /3 workflow starts already pending in this process \(OUTBOX_MAX_PENDING_STARTS\)/,
  );
  // A hand-off of a start already pending joins it rather than being refused.
  void outbox.startSoon(start(0), (err) => deferred.push(err));
  expect(deferred).toHaveLength(7);

  // Temporal answers: the pending starts are done (their rows cleared) and hand-offs are taken on again.
  await new Promise((r) => setImmediate(r));
  answers.forEach((answer) => answer());
  await Promise.all(handedOff);
  expect(outbox.pendingStarts).toBe(0);
  expect(deferred).toHaveLength(7);
  void outbox.startSoon(start(10), (err) => deferred.push(err));
  expect(outbox.pendingStarts).toBe(1);
  expect(loadConfig({}).outbox.maxPendingStarts).toBe(1000);
});
