import type { Context } from 'koa';
import { DomainError } from '../../src/errors';
import { hosts, unroutedErrors } from '../../src/api/app';
import { ApiError } from '../../src/http/errors';
import { errors } from '../../src/http/middleware';
import type { Services } from '../../src/http/services';

/** The error boundary alone, over a minimal context: what a client sees of a failure. */
async function render(path: string, thrown: unknown) {
  const logged: unknown[] = [];
  const services = {
    logger: { error: (o: unknown) => logged.push(o), warn: (o: unknown) => logged.push(o) },
  } as unknown as Services;
  const headers: Record<string, string> = {};
  const ctx = {
    path,
    method: 'POST',
    state: { traceId: 't-1' },
    headers: {},
    get: () => '',
    set: (k: string, v: string) => (headers[k.toLowerCase()] = v),
  } as unknown as Context;
  await errors(services, unroutedErrors(hosts()))(ctx, async () => {
    throw thrown;
  });
  return { status: ctx.status, body: ctx.body as Record<string, unknown>, headers, logged };
}

test.each([
  ['upstream http://10.0.0.7:8545/rpc refused', 'upstream <internal> refused'],
  ['Persona unreachable: connect ECONNREFUSED 10.1.2.3:443', 'Persona unreachable: connect ECONNREFUSED <internal>'],
  ['provider at persona.internal:8443 timed out', 'provider at <internal> timed out'],
  ['The provider rejected the request', 'The provider rejected the request'],
])('22.9 a 5xx message never carries an internal address to the client: %s', async (message, shown) => {
  const res = await render('/deposit-processor/compliance/verification', new DomainError('PROVIDER_FAILED', message));
  expect(res.body.error).toBe(shown);
  expect(JSON.stringify(res.body)).not.toMatch(/10\.\d|internal:/);
  if (message !== shown) expect(res.logged).toEqual([expect.objectContaining({ traceId: 't-1', message })]);
  expect(res.headers['cache-control']).toBe('no-store');
});

test('22.9 a 4xx message is left as it is (chain ids like eip155:8453 are not addresses)', async () => {
  const res = await render('/quotes', new ApiError(400, 'eip155:8453 is not supported'));
  expect(res.body.message).toBe('eip155:8453 is not supported');
});

test('22.9 an RPC hint (what the operator should set) goes to the logs with the trace id, never to the client', async () => {
  const thrown = new DomainError(
    'VALIDATION_ERROR',
    'Smart account signatures are verified on chain and this deployment cannot verify them on chain 8453',
    { operatorHint: 'set RPC_URL_8453 to verify smart-account signatures on chain 8453' },
  );
  const res = await render('/deposit-processor/setup', thrown);
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).not.toMatch(/RPC_URL|operatorHint/);
  expect(res.logged).toEqual([
    { traceId: 't-1', hint: 'set RPC_URL_8453 to verify smart-account signatures on chain 8453' },
  ]);
});
