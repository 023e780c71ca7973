import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../../src/api/app';
import { parseAddressRanges } from '../../src/http/client-address';
import { proveAccount } from '../../src/projects/account-store';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { Api, call, fundLocked, startApi } from '../support/harness';
import { stepOpenEvent } from '../support/widget-sessions';

/**
 * Rules at the API's edge, through HTTP: which address a client has, the Idempotency-Key header, the one amount
 * rule of every host, and a client that stalls its body.
 */
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const BLANC = { 'x-api-version': '2026-04.blanc' };
const TWO_256 = 1n << 256n;
const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** An account with `locked` USDC in this allocator's lock on Base, proven to the test project. */
async function funded(locked: string): Promise<string> {
  const account = newAddress();
  await fundLocked(api, account, locked);
  await proveAccount(api.db.manager, api.projectId, account, 'operator');
  return account;
}
const withdrawalRows = async (account: string) =>
  Number(
    (await api.db.query('SELECT count(*) AS n FROM withdrawals WHERE account = $1', [account.toLowerCase()]))[0].n,
  );

/** One request written byte for byte (`head` with its blank line, then `body`), answered with status, headers and body. */
function raw(
  url: string,
  head: string,
  body = '',
): Promise<{ status: number; headers: string; json: Record<string, unknown> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(head + body));
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headers = data.subarray(0, end).toString();
      const length = Number(/^content-length: (\d+)$/im.exec(headers)?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]),
        headers,
        json: JSON.parse(data.subarray(end + 4, end + 4 + length).toString() || '{}'),
      });
    });
    socket.on('error', reject);
  });
}
const headLines = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('Client addresses cannot be forged', () => {
  /** Each run connects from its own loopback address (Linux routes all of 127/8 to lo), so no other suite shares its count. */
  const peer = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
  /** Unattributed analytics events from `peer`, with whatever X-Forwarded-For the client writes. */
  const send = (n: number, forwardedFor?: string) =>
    new Promise<number>((resolve, reject) => {
      const { port } = new URL(api.url);
      const body = JSON.stringify({ events: Array.from({ length: n }, () => stepOpenEvent()) });
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          localAddress: peer,
          method: 'POST',
          path: '/analytics/events',
          headers: {
            'content-type': 'application/json',
            origin: `https://edge-${peer}.example`,
            ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const configure = (trustedProxies: string[]) =>
    Object.assign(api.services.config, {
      trustedProxies: parseAddressRanges(trustedProxies),
      analyticsUnattributed: { perAddressPerMinute: 2, perOriginPerMinute: 1_000_000, cap: 10_000_000 },
    });
  afterAll(() =>
    Object.assign(api.services.config, {
      trustedProxies: [],
      analyticsUnattributed: { perAddressPerMinute: 10_000_000, perOriginPerMinute: 10_000_000, cap: 1_000_000 },
    }),
  );

  test('Client addresses cannot be forged: with no trusted proxy (the default) a new X-Forwarded-For per request does not reset the per-address meter', async () => {
    configure([]);
    expect(await send(2, '198.51.100.1')).toBe(200);
    expect(await send(1, '198.51.100.2')).toBe(429); // the peer's own count: the header changed nothing
    expect(await send(1)).toBe(429);
  });

  test('Client addresses cannot be forged: behind a trusted proxy its X-Forwarded-For entry is the address, and what the client wrote left of it is not', async () => {
    configure([peer]); // the peer is now the proxy
    expect(await send(2, '198.51.100.3')).toBe(200);
    expect(await send(1, '198.51.100.3')).toBe(429);
    expect(await send(1, '203.0.113.9, 198.51.100.3')).toBe(429); // a client-written entry left of the proxy's
    expect(await send(1, '203.0.113.9, 198.51.100.4')).toBe(200); // another client behind the proxy: its own count
    configure(['10.0.0.0/8']); // a proxy elsewhere: this peer's header is not believed again
    expect(await send(1, '198.51.100.5')).toBe(429);
  });
});

describe('attack pass: Idempotency-Key', () => {
  for (const [route, body] of [
    [
      '/withdrawals',
      (account: string) => ({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1000', recipient: account }),
    ],
    [
      '/batch-withdrawals',
      (account: string) => ({
        account,
        chainId: 8453,
        transfers: [{ recipient: account, tokenAddress: BASE_USDC, amount: '1000' }],
      }),
    ],
  ] as const) {
    test(`attack pass: an empty or whitespace-only Idempotency-Key on POST ${route} is 400 naming the header, and allocates nothing`, async () => {
      const account = await funded('1000000');
      const json = JSON.stringify(body(account));
      for (const value of ['', '   ', '\t']) {
        const res = await raw(
          api.url,
          headLines('POST', route, {
            'content-type': 'application/json',
            'x-api-key': api.apiKey,
            'content-length': String(Buffer.byteLength(json)),
            'Idempotency-Key': value,
          }),
          json,
        );
        const message = 'headers.Idempotency-Key must be 1 to 255 visible ASCII characters';
        expect([value, res.status, res.json]).toEqual([
          value,
          400,
          {
            message,
            errors: [{ message, context: { location: 'headers', path: '/Idempotency-Key', keyword: 'pattern' } }],
            traceId: expect.any(String),
          },
        ]);
      }
      expect(await withdrawalRows(account)).toBe(0);
      // The same request without the header, or with a key, is served.
      expect(
        (await call(api, 'POST', route, { body: body(account), headers: { 'idempotency-key': `k-${account}` } }))
          .status,
      ).toBe(200);
    });
  }
});

describe('attack pass: one amount rule on every host', () => {
  const owner = newAddress();
  const signature = `0x${'11'.repeat(65)}`;
  /** Each route that takes a token amount, a body valid but for the amount, and where the amount sits in it. */
  const cases: {
    host: string;
    route: string;
    name?: string;
    headers?: Record<string, string>;
    field: string;
    /** the spec types this amount as a JSON number: an exact one is taken, one past 2^53 refused */
    number?: true;
    body: (amount: unknown) => Record<string, unknown>;
  }[] = [
    {
      host: 'alps',
      route: '/intents/route',
      field: 'tokenRequests.0.amount',
      body: (amount) => ({
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
        account: { address: owner, accountType: 'EOA', setupOps: [] },
      }),
    },
    {
      host: 'alps',
      route: '/intents/cost',
      field: 'tokenRequests.0.amount',
      body: (amount) => ({
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
        account: { address: owner, accountType: 'EOA', setupOps: [] },
      }),
    },
    {
      host: 'alps',
      route: '/intents/split',
      field: `tokens.${ARB_USDC}`,
      body: (amount) => ({ chainId: 42161, tokens: { [ARB_USDC]: amount } }),
    },
    {
      host: 'alps',
      route: '/withdrawals',
      field: 'amount',
      number: true,
      body: (amount) => ({ account: owner, chainId: 8453, tokenAddress: BASE_USDC, amount, recipient: owner }),
    },
    {
      host: 'alps',
      route: '/batch-withdrawals',
      field: 'transfers.0.amount',
      number: true,
      body: (amount) => ({
        account: owner,
        chainId: 8453,
        transfers: [{ recipient: owner, tokenAddress: BASE_USDC, amount }],
      }),
    },
    {
      host: 'blanc',
      route: '/quotes',
      headers: BLANC,
      field: 'tokenRequests.0.amount',
      body: (amount) => ({
        destinationChainId: 'eip155:42161',
        tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
        account: { address: owner, accountType: 'EOA' },
      }),
    },
    {
      host: 'blanc',
      route: '/intents/splits',
      headers: BLANC,
      field: `tokens.${ARB_USDC}`,
      body: (amount) => ({ chainId: 'eip155:42161', tokens: { [ARB_USDC]: amount } }),
    },
    {
      host: 'legacy',
      route: `/legacy/accounts/${owner}/bundles/cost`,
      name: '/legacy/accounts/{a}/bundles/cost',
      field: 'tokenTransfers.0.amount',
      body: (amount) => ({ targetChainId: 42161, tokenTransfers: [{ tokenAddress: ARB_USDC, amount }] }),
    },
    {
      host: 'legacy',
      route: `/legacy/accounts/${owner}/bundles/path`,
      name: '/legacy/accounts/{a}/bundles/path',
      field: 'tokenTransfers.0.amount',
      body: (amount) => ({
        targetChainId: 42161,
        tokenTransfers: [{ tokenAddress: ARB_USDC, amount }],
        targetAccount: owner,
        targetExecutions: [],
      }),
    },
    {
      host: 'deposit processor',
      route: '/deposit-processor/safe/withdraw',
      field: 'amount',
      body: (amount) => ({
        account: owner,
        chain: 'eip155:8453',
        token: BASE_USDC,
        amount,
        recipient: owner,
        nonce: '1',
        deadline: String(Math.floor(Date.now() / 1000) + 600),
        signature,
      }),
    },
  ];
  /** The message of any host's error body (alps and legacy `message`, blanc `message` with `code`, deposit `error`). */
  const messageOf = (json: Record<string, unknown>) => String(json.message ?? json.error);

  test.each(cases.map((c) => ({ ...c, name: c.name ?? c.route })))(
    'attack pass: $host POST $name refuses zero, 2^256 and an inexact or unspecified JSON number as the amount (400 VALIDATION_ERROR naming body.$field)',
    async ({ host, route, headers, field, number, body }) => {
      const refused: [string | number, RegExp][] = [
        ['0', /must match pattern/],
        [TWO_256.toString(), /must match format "uint256"/],
        number
          ? [2 ** 53, /is a JSON number past 2\^53, which loses digits when parsed: send it as a decimal string/]
          : [1_000_000, /must be string/],
      ];
      for (const [amount, rule] of refused) {
        const res = await call(api, 'POST', route, { body: body(amount), headers });
        expect([amount, res.status, messageOf(res.json)]).toEqual([
          amount,
          400,
          expect.stringMatching(new RegExp(`^body\\.${field.replace(/\./g, '\\.')} ${rule.source}`)),
        ]);
        if (host !== 'alps' && host !== 'legacy') expect(res.json.code).toBe('VALIDATION_ERROR');
      }
      // What the published clients send (bigints as decimal strings) passes the rule, up to 2^256 − 1; and where the
      // spec types the amount as a number, an exact one.
      for (const amount of ['1000000', (TWO_256 - 1n).toString(), ...(number ? [1_000_000] : [])]) {
        const res = await call(api, 'POST', route, { body: body(amount), headers });
        expect([amount, res.status < 500, messageOf(res.json ?? {}).startsWith(`body.${field}`)]).toEqual([
          amount,
          true,
          false,
        ]);
      }
    },
  );
});

describe('attack pass: a client that stalls its body', () => {
  let url: string;
  let server: http.Server;
  beforeAll(async () => {
    // This suite's app with a 1 s deadline (the shared one waits 30 s on busy machines).
    server = createApp({
      ...api.services,
      config: { ...api.services.config, deadlines: { requestSeconds: 1, externalSeconds: 1 } },
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());
  const timeouts = async () => (await api.services.metrics.clientTimeouts.get()).values[0]?.value ?? 0;
  const stalled = (path: string, headers: Record<string, string> = {}) =>
    raw(
      url,
      headLines('POST', path, {
        'content-type': 'application/json',
        'x-api-key': api.apiKey,
        'content-length': '100',
        ...headers,
      }),
      '{"accou',
    );

  test("attack pass: a body stalled past the deadline is 408 REQUEST_TIMEOUT in each host's error body, the connection closed, and counted apart from outages", async () => {
    const alps = await stalled('/withdrawals');
    const message = 'The request body did not arrive within 1s';
    expect([alps.status, alps.json]).toEqual([408, { message, errors: [{ message }], traceId: expect.any(String) }]);
    expect(alps.headers).toMatch(/^connection: close$/im);
    expect(alps.headers).not.toMatch(/^retry-after:/im);
    const blanc = await stalled('/quotes', BLANC);
    expect([blanc.status, blanc.json]).toEqual([
      408,
      { code: 'REQUEST_TIMEOUT', message, traceId: expect.any(String) },
    ]);
    const deposit = await stalled('/deposit-processor/safe/withdraw');
    expect([deposit.status, deposit.json]).toEqual([
      408,
      { error: message, code: 'REQUEST_TIMEOUT', traceId: expect.any(String) },
    ]);
    expect(await timeouts()).toBe(3);
    const answered = (await api.services.metrics.requests.get()).values.filter(
      (v) => v.labels.status === '503' && v.labels.method === 'POST',
    );
    expect(answered).toEqual([]);
  });
});
