import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import Koa from 'koa';
import { ServiceError } from '@temporalio/client';
import { hosts, unroutedErrors } from '../../src/api/app';
import { errors } from '../../src/http/middleware';
import { deadline, deadlineClass, receivingBody } from '../../src/http/deadline';
import type { Services } from '../../src/http/services';

/** The error boundary and the deadline as the app stacks them, in front of handlers that hang or lose a dependency. */
let clientTimeouts = 0;
const services = {
  config: { deadlines: { requestSeconds: 1, externalSeconds: 2 } },
  logger: { error: () => undefined, warn: () => undefined },
  metrics: { clientTimeouts: { inc: () => clientTimeouts++ } },
} as unknown as Services;
let url: string;
let server: ReturnType<Koa['listen']>;

beforeAll(async () => {
  const app = new Koa();
  app.use(errors(services, unroutedErrors(hosts())));
  app.use(deadline(services));
  app.use(async (ctx) => {
    if (ctx.path.endsWith('/hang')) await new Promise(() => undefined);
    if (ctx.path.endsWith('/upload'))
      await receivingBody(ctx, async () => {
        for await (const chunk of ctx.req) void chunk;
      });
    if (ctx.path.endsWith('/pg-timeout'))
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    if (ctx.path.endsWith('/pg-read-timeout'))
      throw Object.assign(new Error('Query read timeout'), { driverError: new Error('Query read timeout') });
    if (ctx.path.endsWith('/temporal'))
      throw new ServiceError('Failed to start Workflow', {
        cause: new Error('14 UNAVAILABLE: No connection established'),
      });
    if (ctx.path.endsWith('/bug')) throw new TypeError('x is undefined');
    ctx.body = { ok: true };
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}${path}`, { headers });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
};

test('22.6 a request that hangs is answered 503 with Retry-After at its deadline, in the body of its host', async () => {
  const alps = await get('/hang');
  expect(alps).toMatchObject({ status: 503, retryAfter: '5' });
  expect(alps.body).toEqual({
    message: expect.stringMatching(/No answer within 1s/),
    errors: [{ message: alps.body.message }],
    traceId: undefined,
  });
  const blanc = await get('/hang', { 'x-api-version': '2026-04.blanc' });
  expect(blanc).toMatchObject({
    status: 503,
    retryAfter: '5',
    body: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
  });
  const deposit = await get('/deposit-processor/hang');
  expect(deposit).toMatchObject({
    status: 503,
    retryAfter: '5',
    body: { error: expect.any(String), code: 'SERVICE_UNAVAILABLE' },
  });
  expect((await get('/fine')).status).toBe(200);
}, 15_000);

/** A POST announcing 100 bytes of body and sending 7, answered with its status line, headers and body. */
function stalledUpload(
  path: string,
  headers = '',
): Promise<{ status: number; head: string; body: Record<string, unknown> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n${headers}\r\n{"accou`),
    );
    let data = '';
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = data.split('\r\n\r\n');
      resolve({ status: Number(head.slice(9, 12)), head, body: JSON.parse(body) });
    });
  });
}

test('attack pass: a client that stalls its body gets 408 REQUEST_TIMEOUT at the deadline, closed and counted apart; 503 stays ours', async () => {
  const alps = await stalledUpload('/upload');
  const message = 'The request body did not arrive within 1s';
  expect([alps.status, alps.body]).toEqual([408, { message, errors: [{ message }], traceId: undefined }]);
  expect(alps.head).toMatch(/^connection: close$/im); // the socket closed (stalledUpload resolves on close)
  expect(alps.head).not.toMatch(/^retry-after:/im);
  const blanc = await stalledUpload('/upload', 'x-api-version: 2026-04.blanc\r\n');
  expect([blanc.status, blanc.body]).toEqual([408, { code: 'REQUEST_TIMEOUT', message }]);
  const deposit = await stalledUpload('/deposit-processor/upload');
  expect([deposit.status, deposit.body]).toEqual([408, { error: message, code: 'REQUEST_TIMEOUT' }]);
  expect(clientTimeouts).toBe(3);
  // A handler of ours that hangs before reading the body: 503, not counted as the client's.
  expect((await stalledUpload('/hang', 'Connection: close\r\n')).status).toBe(503);
  expect(clientTimeouts).toBe(3);
}, 15_000);

test('22.6 PostgreSQL timeouts and Temporal service errors are 503 with Retry-After, a bug stays a 500', async () => {
  for (const path of ['/pg-timeout', '/pg-read-timeout', '/temporal', '/deposit-processor/temporal']) {
    expect(await get(path)).toMatchObject({ status: 503, retryAfter: '5' });
  }
  expect((await get('/bug')).status).toBe(500);
});

test('22.6 routes that wait on a chain RPC or the identity provider get the external deadline', () => {
  for (const path of [
    '/intents',
    '/intent-operations',
    '/quotes',
    '/intents/route',
    '/legacy/bundles',
    '/deposit-processor/setup',
    '/deposit-processor/safe/withdraw',
    '/deposit-processor/account/0xabc/session',
    '/deposit-processor/compliance/verification',
  ]) {
    expect([path, deadlineClass('POST', path)]).toEqual([path, 'external']);
  }
  for (const path of ['/withdrawals', '/indexer/events', '/deposit-processor/deposits/recovery'])
    expect(deadlineClass('POST', path)).toBe('request');
  expect(deadlineClass('GET', '/intents/1')).toBe('request');
});
