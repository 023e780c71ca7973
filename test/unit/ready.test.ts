import type { Context } from 'koa';
import { opsRoutes } from '../../src/ops/routes';
import type { Services } from '../../src/http/services';

const ready = opsRoutes.find((r) => r.path === '/ready')!;
const warnings: unknown[] = [];
const polling = { pollers: [{ lastAccessTime: { seconds: Math.floor(Date.now() / 1000) } }] };
const services = (db: () => Promise<unknown>, taskQueue: () => Promise<unknown> = async () => polling) =>
  ({
    db: { query: db },
    config: { temporalNamespace: 'default', taskQueue: 'orchestrator', deadlines: { requestSeconds: 5 } },
    temporal: {
      workflowService: { getSystemInfo: async () => ({}), describeTaskQueue: taskQueue },
    },
    logger: { warn: (o: unknown) => warnings.push(o) },
  }) as unknown as Services;
const input = { body: {}, query: {}, params: {} };

test('/ready answers 503 within its timeout when the database hangs, without raw error text', async () => {
  const res = await ready.handler(
    {} as Context,
    input,
    services(() => new Promise(() => undefined)),
  );
  expect(res).toEqual({ status: 503, body: { status: 'unavailable', database: 'down', temporal: 'ok', worker: 'ok' } });
}, 10_000);

test('/ready keeps the failure reason for the logs only', async () => {
  const res = await ready.handler(
    {} as Context,
    input,
    services(async () => {
      throw new Error('password authentication failed for user "orchestrator"');
    }),
  );
  expect(JSON.stringify(res.body)).not.toMatch(/password/);
  expect(JSON.stringify(warnings)).toMatch(/database/);
});

test('22.6 /ready is not ready and names the worker when no worker polls the task queue', async () => {
  const none = await ready.handler(
    {} as Context,
    input,
    services(
      async () => [],
      async () => ({ pollers: [] }),
    ),
  );
  expect(none).toEqual({
    status: 503,
    body: { status: 'unavailable', database: 'ok', temporal: 'ok', worker: 'down' },
  });
  // A poller Temporal still lists but that has not polled for minutes is a worker that went away.
  const stale = await ready.handler(
    {} as Context,
    input,
    services(
      async () => [],
      async () => ({ pollers: [{ lastAccessTime: { seconds: Math.floor(Date.now() / 1000) - 600 } }] }),
    ),
  );
  expect(stale.body).toMatchObject({ worker: 'down' });
  expect(
    await ready.handler(
      {} as Context,
      input,
      services(async () => []),
    ),
  ).toEqual({ status: 200, body: { status: 'ready', database: 'ok', temporal: 'ok', worker: 'ok' } });
});
