import type { Context } from 'koa';
import { ApiError } from '../../src/http/errors';
import { errors } from '../../src/http/middleware';
import type { Services } from '../../src/http/services';

/** The error boundary alone, over a minimal context: what a client sees of a failure. */
async function render(path: string, thrown: unknown) {
  const logged: unknown[] = [];
  const services = { logger: { error: (o: unknown) => logged.push(o), warn: () => undefined } } as unknown as Services;
  const headers: Record<string, string> = {};
  const ctx = { path, method: 'POST', state: { traceId: 't-1' }, headers: {}, get: () => '', set: (k: string, v: string) => (headers[k.toLowerCase()] = v) } as unknown as Context;
  await errors(services)(ctx, async () => {
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
  const res = await render('/deposit-processor/compliance/verification', new ApiError(502, message));
  expect(res.body.error).toBe(shown);
  expect(JSON.stringify(res.body)).not.toMatch(/10\.\d|internal:/);
  if (message !== shown) expect(res.logged).toEqual([expect.objectContaining({ traceId: 't-1', message })]);
  expect(res.headers['cache-control']).toBe('no-store');
});

test('22.9 a 4xx message is left as it is (chain ids like eip155:8453 are not addresses)', async () => {
  const res = await render('/quotes', new ApiError(400, 'eip155:8453 is not supported'));
  expect(res.body.message).toBe('eip155:8453 is not supported');
});
