import { privateKeyToAccount } from 'viem/accounts';
import { Api, call, startApi } from '../support/harness';
import { TEST_SECRETS } from '../support/secrets';
import { waitFor } from '../../src/dev/processes';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

test('/health publishes the allocator and orchestrator addresses', async () => {
  const { status, json } = await call(api, 'GET', '/health', { headers: {} });
  expect(status).toBe(200);
  expect(json.allocatorAddress).toBe(privateKeyToAccount(TEST_SECRETS.ALLOCATOR_PRIVATE_KEY as `0x${string}`).address);
  expect(json.orchestratorAddress).toBe(
    privateKeyToAccount(TEST_SECRETS.ORCHESTRATOR_PRIVATE_KEY as `0x${string}`).address,
  );
  expect(json.lockTag).toMatch(/^0x6[0-9a-f]{23}$/);
});

test('/ready checks Postgres, Temporal and a polling worker', async () => {
  // The worker global setup started may not have polled yet when this suite runs first.
  await waitFor('a polling worker', async () => (await call(api, 'GET', '/ready')).status === 200, 60_000);
  const { status, json } = await call(api, 'GET', '/ready');
  expect(status).toBe(200);
  expect(json).toEqual({ status: 'ready', database: 'ok', temporal: 'ok', worker: 'ok' });
});

test('/metrics counts requests per route', async () => {
  await call(api, 'GET', '/health');
  const { text } = await call(api, 'GET', '/metrics');
  expect(text).toMatch(/http_requests_total\{method="GET",route="\/health",status="200"\} \d+/);
  expect(text).toContain('http_request_duration_seconds_bucket');
  expect(text).toMatch(/^outbox_pending_starts 0$/m); // nothing accepted and left unstarted here
});

test('/chains lists the registry with CAIP-2 ids and requires a key', async () => {
  expect((await call(api, 'GET', '/chains', { headers: { 'x-api-key': '' } })).status).toBe(401);
  const { json } = await call(api, 'GET', '/chains');
  const base = json.chains.find((c: { id: number }) => c.id === 8453);
  expect(base).toMatchObject({ caip2: 'eip155:8453', name: 'Base', testnet: false });
  expect(base.settlementLayers).not.toContain('OFT');
  expect(base.tokens).toContainEqual(
    expect.objectContaining({ symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 }),
  );
  expect(json.chains.map((c: { id: number }) => c.id)).toEqual(
    expect.arrayContaining([1, 10, 137, 42161, 11155111, 84532]),
  );
});

test('/openapi.json is generated from the route schemas', async () => {
  const { json } = await call(api, 'GET', '/openapi.json');
  expect(json.openapi).toBe('3.1.0');
  const get = json.paths['/accounts/{userAddress}/portfolio'].get;
  expect(get.parameters).toContainEqual(expect.objectContaining({ name: 'userAddress', in: 'path', required: true }));
  expect(get.security).toEqual([{ apiKey: [] }]);
  expect(json.paths['/legacy/accounts/{userAddress}/portfolio'].get).toBeDefined();
  expect(
    json.paths['/indexer/events'].post.requestBody.content['application/json'].schema.properties.events.maxItems,
  ).toBe(1000);
});
