import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { ApplicationFailure } from '@temporalio/common';
import { DomainError, type ErrorCode } from '../../src/errors';
import { DEPOSIT_ERRORS } from '../../src/deposits/errors';
import {
  currentHostErrors,
  depositProcessorErrors,
  type ErrorRenderer,
  legacyHostErrors,
} from '../../src/http/error-bodies';
import { STATUS } from '../../src/http/errors';
import { errors, rendersErrors } from '../../src/http/middleware';
import type { Services } from '../../src/http/services';
import { activityFailure, isRetryable } from '../../src/temporal-sdk/activity-failure';
import { WORKFLOW_CODES } from '../../workflows/contracts/deposit';

/** What the domain throws, one of each kind a host renders differently. */
const THROWN: Record<string, DomainError> = {
  account: new DomainError('NOT_FOUND', 'Account not found', {
    reason: 'ACCOUNT-1',
    details: [{ message: 'is not a registered account of this project', path: ['body', 'account'], code: 'ACCOUNT-1' }],
  }),
  liquidity: new DomainError('INSUFFICIENT_LIQUIDITY', 'Insufficient liquidity', {
    details: { availableIntents: [], unfillable: { USDC: '5' } },
  }),
  refused: new DomainError('VALIDATION_ERROR', 'Unsupported chain 7', { context: { index: 0 } }),
  outage: new DomainError(
    'SERVICE_UNAVAILABLE',
    'The RPC of chain 1 is unavailable; signatures cannot be verified now, retry later',
  ),
  metered: new DomainError('TOO_MANY_REQUESTS', 'Too Many Requests', { retryAfterSeconds: 7 }),
};

/**
 * Three hosts mounted as src/api/app.ts mounts them, each with its renderer, at prefixes that are not the real
 * hosts': the body follows the mount, never the path. A request no route takes goes to `unrouted` (alps here).
 */
let url: string;
let server: ReturnType<Koa['listen']>;
beforeAll(async () => {
  const services = { logger: { error: () => undefined, warn: () => undefined } } as unknown as Services;
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.state.traceId = 't-1';
    await next();
  });
  app.use(errors(services, () => currentHostErrors));
  for (const [prefix, render] of [
    ['/a', currentHostErrors],
    ['/b', legacyHostErrors],
    ['/c', depositProcessorErrors],
  ] as [string, ErrorRenderer][]) {
    const router = new Router({ prefix });
    router.use(rendersErrors(render));
    router.post('/fail/:kind', (ctx) => {
      throw THROWN[ctx.params.kind];
    });
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

async function fail(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}
const BLANC = { 'x-api-version': '2026-04.blanc' };

test("Domain errors independent of transport: one domain error, each host's documented body and the status of its code", async () => {
  const { details } = THROWN.account.detail;
  const alps = { message: 'Account not found', errors: [{ message: 'Account not found' }], traceId: 't-1' };
  expect(await fail('/a/fail/account')).toEqual({ status: 404, retryAfter: null, body: alps });
  expect(await fail('/a/fail/account', BLANC)).toEqual({
    status: 404,
    retryAfter: null,
    body: { code: 'NOT_FOUND', message: 'Account not found', traceId: 't-1', details },
  });
  expect(await fail('/b/fail/account')).toEqual({ status: 404, retryAfter: null, body: alps });
  expect(await fail('/c/fail/account')).toEqual({
    status: 404,
    retryAfter: null,
    body: { error: 'Account not found', code: 'ACCOUNT-1', details, traceId: 't-1' },
  });

  // alps answers a liquidity shortfall's figures at the top level; blanc in its envelope.
  expect(await fail('/a/fail/liquidity')).toMatchObject({
    status: 422,
    body: { error: 'INSUFFICIENT_LIQUIDITY', availableIntents: [], unfillable: { USDC: '5' }, traceId: 't-1' },
  });
  expect(await fail('/a/fail/liquidity', BLANC)).toMatchObject({
    status: 422,
    body: { code: 'INSUFFICIENT_LIQUIDITY', details: { availableIntents: [], unfillable: { USDC: '5' } } },
  });

  // What the refusal is about reaches alps' and the legacy host's `errors[0].context`; the deposit body names no code
  // of the intent core's.
  const refused = {
    message: 'Unsupported chain 7',
    errors: [{ message: 'Unsupported chain 7', context: { index: 0 } }],
    traceId: 't-1',
  };
  expect(await fail('/b/fail/refused')).toEqual({ status: 400, retryAfter: null, body: refused });
  expect(await fail('/a/fail/refused', BLANC)).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  expect((await fail('/c/fail/refused')).body).toEqual({ error: 'Unsupported chain 7', traceId: 't-1' });

  // An outage is the 503 contract on every host: Retry-After, and SERVICE_UNAVAILABLE where a code is published.
  for (const [path, headers] of [
    ['/a', {}],
    ['/a', BLANC],
    ['/b', {}],
    ['/c', {}],
  ] as const)
    expect(await fail(`${path}/fail/outage`, headers)).toMatchObject({ status: 503, retryAfter: '5' });
  expect((await fail('/c/fail/outage')).body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect((await fail('/a/fail/outage', BLANC)).body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(await fail('/c/fail/metered')).toMatchObject({
    status: 429,
    retryAfter: '7',
    body: { error: 'Too Many Requests' },
  });

  // No route took these: the unrouted renderer answers, whatever the prefix.
  expect(await fail('/c/nothing')).toEqual({
    status: 404,
    retryAfter: null,
    body: {
      message: 'Route POST /c/nothing not found',
      errors: [{ message: 'Route POST /c/nothing not found' }],
      traceId: 't-1',
    },
  });
});

test('Domain errors independent of transport: an activity fails for good on a refusal and retries an outage, by its code', () => {
  const refused = activityFailure(new DomainError('INVALID_SIGNATURE', 'Invalid bundle signature'));
  expect(refused).toBeInstanceOf(ApplicationFailure);
  expect(refused).toMatchObject({ message: 'Invalid bundle signature', type: 'INVALID_SIGNATURE', nonRetryable: true });
  expect(activityFailure(new DomainError('SERVICE_UNAVAILABLE', 'down'))).toMatchObject({
    type: 'SERVICE_UNAVAILABLE',
    nonRetryable: false,
  });
  const other = new Error('connection reset');
  expect(activityFailure(other)).toBe(other);
  // The rule the deposit activities always kept: a refusal answered below 500 is the same on every retry.
  for (const [code, status] of Object.entries(STATUS))
    expect([code, isRetryable(code as ErrorCode)]).toEqual([code, status >= 500]);
});

test("Domain errors independent of transport: the codes the deposit workflows decide are the catalogue's, retried as it says", () => {
  const retryable = Object.fromEntries(
    Object.entries(WORKFLOW_CODES).map(([name, code]) => [name, DEPOSIT_ERRORS[code]?.retryable]),
  );
  // A failed or expired attempt is retried with a fresh quote; no route and missing funds end the deposit.
  expect(retryable).toEqual({ noRoute: false, fundsMissing: false, bridgeExpired: true, bridgeFailed: true });
});
