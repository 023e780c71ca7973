import type { Context } from 'koa';
import { opsRoutes } from '../../src/ops/routes';
import type { Services } from '../../src/http/services';

const ready = opsRoutes.find((r) => r.path === '/ready')!;
const warnings: unknown[] = [];
const services = (db: () => Promise<unknown>) => ({
  db: { query: db },
  temporal: { connection: { withDeadline: (_: number, fn: () => Promise<unknown>) => fn() }, workflowService: { getSystemInfo: async () => ({}) } },
  logger: { warn: (o: unknown) => warnings.push(o) },
}) as unknown as Services;
const input = { body: {}, query: {}, params: {} };

test('/ready answers 503 within its timeout when the database hangs, without raw error text', async () => {
  const res = await ready.handler({} as Context, input, services(() => new Promise(() => undefined)));
  expect(res).toEqual({ status: 503, body: { status: 'unavailable', database: 'down', temporal: 'ok' } });
}, 10_000);

test('/ready keeps the failure reason for the logs only', async () => {
  const res = await ready.handler({} as Context, input, services(async () => { throw new Error('password authentication failed for user "orchestrator"'); }));
  expect(JSON.stringify(res.body)).not.toMatch(/password/);
  expect(JSON.stringify(warnings)).toMatch(/database/);
});
