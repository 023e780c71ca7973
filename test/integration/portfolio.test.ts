import { BASE_USDC, eventId } from '../support/fixtures';
import { Api, call, ingest, startApi } from '../support/harness';

const ACCOUNT = '0x1111111111111111111111111111111111111111';
const ETH_USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ARB_WETH = '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1';
const BSC_USDC = '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d';
const MAX_UINT256 = (2n ** 256n - 1n).toString();

let api: Api;
let n = 0;
const account = () => `0x${(Date.now() * 1000 + n++).toString(16).padStart(40, '0')}`;
const portfolio = (addr: string, query = '', host = '') =>
  call(api, 'GET', `${host}/accounts/${addr}/portfolio${query}`);

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('indexer ingestion and portfolio', () => {
  test('locked and unlocked balances across chains, grouped by token', async () => {
    const res = await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: ACCOUNT,
        token: BASE_USDC,
        unlocked: '1000000',
        locked: '5000000',
        blockNumber: '100',
      },
      {
        id: eventId(),
        type: 'balance',
        chainId: 1,
        account: ACCOUNT,
        token: ETH_USDC,
        unlocked: '250',
        blockNumber: 7,
      },
      {
        id: eventId(),
        type: 'balance',
        chainId: 42161,
        account: ACCOUNT,
        token: ARB_WETH,
        unlocked: '0',
        blockNumber: '1',
      },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: 3, applied: 3, duplicates: 0 });

    const { status, json } = await portfolio(ACCOUNT);
    expect(status).toBe(200);
    const usdc = json.portfolio.find((t: { tokenName: string }) => t.tokenName === 'USDC');
    expect(usdc).toEqual({
      tokenName: 'USDC',
      tokenDecimals: 6,
      balance: { locked: '5000000', unlocked: '1000250' },
      tokenChainBalance: [
        { chainId: 1, tokenAddress: ETH_USDC, tokenDecimals: 6, balance: { locked: '0', unlocked: '250' } },
        {
          chainId: 8453,
          tokenAddress: BASE_USDC,
          tokenDecimals: 6,
          balance: { locked: '5000000', unlocked: '1000000' },
        },
      ],
    });
    expect(json.portfolio.map((t: { tokenName: string }) => t.tokenName)).toEqual(['USDC', 'WETH']);
  });

  test('filters: chainIds and tokens as comma lists or repeated [] keys, filterEmpty, empty tokens= means none', async () => {
    const a = account();
    await ingest(api, [
      { id: eventId(), type: 'balance', chainId: 8453, account: a, token: BASE_USDC, unlocked: '10', blockNumber: '1' },
      { id: eventId(), type: 'balance', chainId: 1, account: a, token: ETH_USDC, unlocked: '20', blockNumber: '1' },
      {
        id: eventId(),
        type: 'balance',
        chainId: 42161,
        account: a,
        token: ARB_WETH,
        unlocked: '0',
        locked: '0',
        blockNumber: '1',
      },
    ]);
    const chains = (json: { portfolio: { tokenChainBalance: { chainId: number }[] }[] }) =>
      json.portfolio.flatMap((t) => t.tokenChainBalance.map((c) => c.chainId)).sort((x, y) => x - y);

    expect(chains((await portfolio(a, '?chainIds=1%2C42161')).json)).toEqual([1, 42161]);
    expect(chains((await portfolio(a, '?chainIds%5B%5D=8453&chainIds%5B%5D=1&tokens=')).json)).toEqual([1, 8453]);
    expect(chains((await portfolio(a, `?tokens=8453%3A${BASE_USDC.toLowerCase()}`)).json)).toEqual([8453]);
    expect(chains((await portfolio(a, `?tokens%5B%5D=1:${ETH_USDC}`)).json)).toEqual([1]);
    expect(chains((await portfolio(a, '?filterEmpty=true')).json)).toEqual([1, 8453]);
    expect(chains((await portfolio(a, '?filterEmpty=false')).json)).toEqual([1, 8453, 42161]);
    expect((await portfolio(a, '?chainIds=abc')).status).toBe(400);
    expect((await portfolio(a, '?tokens=8453:nope')).status).toBe(400);
  });

  test('tokens with different decimals under one symbol stay separate entries', async () => {
    const a = account();
    await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 56,
        account: a,
        token: BSC_USDC,
        unlocked: '1000000000000000000',
        blockNumber: '1',
      },
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: a,
        token: BASE_USDC,
        unlocked: '1000000',
        blockNumber: '1',
      },
    ]);
    const { json } = await portfolio(a);
    expect(
      json.portfolio.map((t: { tokenName: string; tokenDecimals: number }) => [t.tokenName, t.tokenDecimals]),
    ).toEqual([
      ['USDC', 6],
      ['USDC', 18],
    ]);
  });

  test('exact 78-digit amounts round-trip, and sums beyond 2^256 stay exact', async () => {
    const a = account();
    await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: a,
        token: BASE_USDC,
        unlocked: MAX_UINT256,
        locked: MAX_UINT256,
        blockNumber: '1',
      },
      {
        id: eventId(),
        type: 'balance',
        chainId: 1,
        account: a,
        token: ETH_USDC,
        unlocked: MAX_UINT256,
        blockNumber: '1',
      },
    ]);
    const { json } = await portfolio(a, '?chainIds=8453');
    expect(json.portfolio[0].balance).toEqual({ locked: MAX_UINT256, unlocked: MAX_UINT256 });
    const all = await portfolio(a);
    expect(all.json.portfolio[0].balance.unlocked).toBe((2n * (2n ** 256n - 1n)).toString());
    const legacy = await portfolio(a, '?chainIds%5B%5D=8453', '/legacy');
    expect(legacy.json.portfolio[0].balance).toBe((2n * (2n ** 256n - 1n)).toString());
  });

  test('re-sending an event id changes nothing', async () => {
    const a = account();
    const first = {
      id: eventId(),
      type: 'balance',
      chainId: 8453,
      account: a,
      token: BASE_USDC,
      unlocked: '100',
      blockNumber: '10',
    };
    expect((await ingest(api, [first])).json).toEqual({ received: 1, applied: 1, duplicates: 0 });
    const again = await ingest(api, [{ ...first, unlocked: '999', blockNumber: '11' }, first]);
    expect(again.json).toEqual({ received: 1, applied: 0, duplicates: 1 });
    const { json } = await portfolio(a);
    expect(json.portfolio[0].balance.unlocked).toBe('100');
  });

  test('a snapshot from an older block is ignored; locked and unlocked keep their own blocks', async () => {
    const a = account();
    await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: a,
        token: BASE_USDC,
        unlocked: '500',
        locked: '70',
        blockNumber: '20',
      },
    ]);
    await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: a,
        token: BASE_USDC,
        unlocked: '1',
        locked: '1',
        blockNumber: '19',
      },
    ]);
    await ingest(api, [
      { id: eventId(), type: 'balance', chainId: 8453, account: a, token: BASE_USDC, locked: '80', blockNumber: '21' },
    ]);
    // Within one batch, order does not matter either: the highest block wins.
    await ingest(api, [
      { id: eventId(), type: 'balance', chainId: 1, account: a, token: ETH_USDC, unlocked: '9', blockNumber: '30' },
      { id: eventId(), type: 'balance', chainId: 1, account: a, token: ETH_USDC, unlocked: '8', blockNumber: '29' },
    ]);
    const { json } = await portfolio(a);
    expect(json.portfolio[0].tokenChainBalance).toEqual([
      expect.objectContaining({ chainId: 1, balance: { locked: '0', unlocked: '9' } }),
      expect.objectContaining({ chainId: 8453, balance: { locked: '80', unlocked: '500' } }),
    ]);
  });

  test('locked balances of other lock tags count as locked too', async () => {
    const a = account();
    await ingest(api, [
      { id: eventId(), type: 'balance', chainId: 8453, account: a, token: BASE_USDC, locked: '5', blockNumber: '1' },
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: a,
        token: BASE_USDC,
        locked: '7',
        lockTag: '0x60e6d13bb05699a31a457679',
        blockNumber: '1',
      },
    ]);
    expect((await portfolio(a)).json.portfolio[0].balance).toEqual({ locked: '12', unlocked: '0' });
  });

  test('legacy host serves one balance string per level', async () => {
    const { status, json } = await portfolio(ACCOUNT, '?chainIds%5B%5D=8453&tokens=', '/legacy');
    expect(status).toBe(200);
    expect(json.portfolio).toEqual([
      {
        tokenName: 'USDC',
        tokenDecimals: 6,
        balance: '6000000',
        tokenChainBalance: [{ chainId: 8453, tokenAddress: BASE_USDC, balance: '6000000' }],
      },
    ]);
  });
});

describe('bad input gets a documented 4xx', () => {
  test('missing and unknown API keys: 401 with the messages the client maps', async () => {
    const missing = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, { headers: { 'x-api-key': '' } });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      message: 'Authentication is required',
      errors: [{ message: 'Authentication is required' }],
      traceId: expect.any(String),
    });
    const unknown = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, { headers: { 'x-api-key': 'sk_nope' } });
    expect(unknown.status).toBe(401);
    expect(unknown.json.message).toBe('Invalid API key');
    expect(unknown.json.errors).toEqual([{ message: 'Invalid API key' }]);
    expect(unknown.headers.get('x-trace-id')).toBe(unknown.json.traceId);
  });

  test('bad address: 400 naming the field, with details', async () => {
    const res = await portfolio('0x1234');
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/^params\.userAddress must match pattern/);
    expect(res.json.errors[0].context).toMatchObject({ location: 'params', path: '/userAddress', keyword: 'pattern' });
  });

  test('malformed JSON: 400 entity.parse.failed; too large: 413', async () => {
    const res = await call(api, 'POST', '/indexer/events', {
      raw: '{"events": [',
      headers: { 'x-indexer-key': api.indexerKey },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('entity.parse.failed');
    const big = await call(api, 'POST', '/indexer/events', {
      raw: JSON.stringify({ events: [], pad: 'x'.repeat(2_000_000) }),
      headers: { 'x-indexer-key': api.indexerKey },
    });
    expect(big.status).toBe(413);
    expect(big.json.message).toBe('entity.too.large');
  });

  test('indexer route: its own key, unknown event types, unsupported chains and tokens, oversized batches', async () => {
    const event = {
      id: eventId(),
      type: 'balance',
      chainId: 8453,
      account: ACCOUNT,
      token: BASE_USDC,
      unlocked: '1',
      blockNumber: '1',
    };
    expect((await call(api, 'POST', '/indexer/events', { body: { events: [event] } })).status).toBe(401);
    expect(
      (await call(api, 'POST', '/indexer/events', { body: { events: [event] }, headers: { 'x-indexer-key': 'wrong' } }))
        .json.message,
    ).toBe('Invalid indexer key');

    const unknownType = await ingest(api, [{ ...event, type: 'teleport' }]);
    expect(unknownType.status).toBe(400);
    expect(unknownType.json.errors[0].context).toMatchObject({ path: '/events/0/type', keyword: 'enum' });

    const chain = await ingest(api, [{ ...event, chainId: 424242 }]);
    expect(chain.status).toBe(400);
    expect(chain.json.message).toBe('Unsupported chain 424242');
    const token = await ingest(api, [{ ...event, token: ETH_USDC }]);
    expect(token.json.message).toBe(`Token ${ETH_USDC} not supported on chain 8453`);

    expect((await ingest(api, [{ ...event, unlocked: '-1' }])).status).toBe(400);
    expect((await ingest(api, [{ ...event, unlocked: '1'.repeat(79) }])).status).toBe(400);
    expect((await ingest(api, [{ ...event, unlocked: undefined }])).status).toBe(400);
    expect((await ingest(api, [])).status).toBe(400);
    expect(
      (
        await ingest(
          api,
          Array.from({ length: 1001 }, (_, i) => ({ ...event, id: `big-${i}` })),
        )
      ).status,
    ).toBe(400);
  });

  test('x-api-version: malformed or unknown → 400 VALIDATION_ERROR envelope; missing means alps', async () => {
    const bad = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, { headers: { 'x-api-version': 'v2' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('Malformed'),
      traceId: expect.any(String),
    });
    const unknown = await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, {
      headers: { 'x-api-version': '2030-01.zeta' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.code).toBe('VALIDATION_ERROR');
    expect(
      (await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`, { headers: { 'x-api-version': '2026-01.alps' } }))
        .status,
    ).toBe(200);
  });

  test('unknown routes and methods get JSON bodies', async () => {
    const res = await call(api, 'GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.json.errors[0].message).toBe('Route GET /no/such/route not found');
    expect((await call(api, 'DELETE', '/health')).status).toBe(405);
  });
});
