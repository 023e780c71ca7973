import fs from 'node:fs';
import net from 'node:net';
import zlib from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stopProcess } from '../../src/dev/processes';
import { LIMITS } from '../../src/http/limits';
import { parseAddressRanges } from '../../src/http/client-address';
import { ARB_USDC, BASE_USDC, eventId, lockedSnapshot } from '../support/fixtures';
import { Api, call, fundLocked, ingest, spawnApi, startApi } from '../support/harness';
import { DP, newOwner, projectSigner } from '../support/deposits';
import { newProject } from '../support/projects';
import { stepOpenEvent } from '../support/widget-sessions';

let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const TWO_256 = (1n << 256n).toString();
const route = (account: Record<string, unknown> = {}) => ({
  account: { address: privateKeyToAccount(generatePrivateKey()).address, accountType: 'EOA', setupOps: [], ...account },
  destinationChainId: 42161,
  tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
});
/** An account holding 5 USDC in a lock on Base: a route for 1 USDC to it is quoted (200), so only a hostile value refuses it. */
async function fundedAddress(): Promise<string> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await fundLocked(api, address, '5000000');
  return address;
}
/** A managed registration the deposit processor accepts (201) as it stands. */
async function registration() {
  const { owner, address } = newOwner();
  return {
    account: {
      address,
      owner: owner.address,
      sessionSigner: await projectSigner(api),
      target: { chain: 'eip155:42161', token: ARB_USDC },
    },
  };
}
const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** One request over a raw socket (headers fetch refuses to send), answered with its status line and body. */
function rawRequest(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0),
        text: data.slice(data.indexOf('\r\n\r\n') + 4),
      }),
    );
  });
}
const port = () => Number(new URL(api.url).port);

describe('22.1 validation details are capped and arrays bounded', () => {
  let child: ChildProcess;
  let childUrl: string;
  beforeAll(async () => {
    ({ child, url: childUrl } = await spawnApi({ ...api.env.env, LOG_LEVEL: 'silent' }, '/health'));
  }, 90_000);
  afterAll(() => stopProcess(child, 'SIGKILL'));

  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;

  test('22.1 a 1 MB flood of 500k array items answers 400 with at most 20 details and a small body; API RSS stays bounded', async () => {
    const before = rss();
    const flood = `[${'1,'.repeat(499_999)}1]`;
    const floods: { path: string; raw: string; headers: Record<string, string> }[] = [
      { path: '/indexer/events', raw: `{"events":${flood}}`, headers: { 'x-indexer-key': api.indexerKey } },
      {
        path: '/intents/route',
        raw: `{"destinationChainId":42161,"account":{"address":"0x${'1'.repeat(40)}","accountType":"EOA"},"tokenRequests":${flood}}`,
        headers: {},
      },
      {
        path: '/batch-withdrawals',
        raw: `{"account":"0x${'1'.repeat(40)}","chainId":1,"transfers":${flood}}`,
        headers: {},
      },
    ];
    for (const f of floods) {
      const res = await call({ ...api, url: childUrl }, 'POST', f.path, { raw: f.raw, headers: f.headers });
      expect(res.status).toBe(400);
      expect(res.text.length).toBeLessThan(20_000);
      expect((res.json.errors ?? res.json.details).length).toBeLessThanOrEqual(LIMITS.details);
    }
    const after = rss();
    expect({ before, after, bounded: after < LIMITS.apiRssBytes }).toEqual({ before, after, bounded: true });
  }, 60_000);

  test('22.1 many small problems: the first 20 details, and the count of the others', async () => {
    const res = await call(api, 'POST', '/indexer/events', {
      body: { events: Array.from({ length: 200 }, () => ({ type: 'balance' })) },
      headers: { 'x-indexer-key': api.indexerKey },
    });
    expect(res.status).toBe(400);
    expect(res.json.errors).toHaveLength(LIMITS.details);
    expect(res.json.message).toMatch(/and \d+ more problems/);
  });
});

describe('22.2 NUL and lone surrogates are refused, naming the field', () => {
  test('22.2 a NUL in a stored free-form body string is 400 naming the field, never a 500', async () => {
    const res = await call(api, 'POST', '/analytics/events', {
      body: { events: [stepOpenEvent({ session_properties: { note: 'a\u0000b' } })] },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/body\.events\.0\.session_properties\.note/);
  });
  test('22.2 a lone surrogate in a body string or key is 400', async () => {
    const res = await call(api, 'POST', '/analytics/events', {
      raw: JSON.stringify({ events: [stepOpenEvent({ session_properties: { x: 'ok' } })] }).replace('"x"', '"\\ud800"'),
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(
      'body.events.0.session_properties has a property name with U+0000 or an unpaired UTF-16 surrogate',
    );
    // The deposit processor's free string (an endpoint's url), in its own error body; the same url without it is added.
    const p = await newProject(api, 'hostile-input');
    const url = 'http://127.0.0.1:9/hook';
    const deposit = await call(p, 'POST', `${DP}/webhooks/endpoints`, { raw: `{"url":"${url}\\udc00"}` });
    expect([deposit.status, deposit.json]).toEqual([
      400,
      {
        error: 'body.url must not contain U+0000 or an unpaired UTF-16 surrogate',
        code: 'VALIDATION_ERROR',
        traceId: expect.any(String),
        details: [
          { message: 'must not contain U+0000 or an unpaired UTF-16 surrogate', path: ['body', 'url'], code: 'string' },
        ],
      },
    ]);
    expect((await call(p, 'POST', `${DP}/webhooks/endpoints`, { body: { url } })).status).toBe(201);
  });
  test('22.2 a NUL in a query string or a path parameter is 400 naming it', async () => {
    const q = await call(api, 'GET', '/analytics/report?token=ab%00cd');
    expect(q.status).toBe(400);
    expect(q.json.message).toMatch(/query\.token/);
    const p = await call(api, 'GET', '/deposit-processor/webhooks/events/x%00y');
    expect(p.status).toBe(400);
    expect(p.json.error).toMatch(/params\.eventId/);
  });
  test('22.2 a NUL in a header is 400 with a JSON body', async () => {
    const res = await rawRequest(port(), `GET /health HTTP/1.1\r\nHost: x\r\nx-note: a\u0000b\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).message).toBeTruthy();
  });
});

describe('22.3 numbers and nesting', () => {
  test('22.3 an amount of 2^256 or more is 400 (indexer balance, intent amount, withdrawal amount)', async () => {
    const account = privateKeyToAccount(generatePrivateKey()).address;
    const bal = await ingest(api, [lockedSnapshot(account, TWO_256)]);
    expect(bal.status).toBe(400);
    const r = await call(api, 'POST', '/intents/route', {
      body: { ...route(), tokenRequests: [{ tokenAddress: ARB_USDC, amount: TWO_256 }] },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/amount/);
  });
  test('22.3 1e400, negative zero, 20-digit block numbers and exponents are 400', async () => {
    const account = privateKeyToAccount(generatePrivateKey()).address;
    const ev = (block: string) =>
      `{"events":[{"id":"${eventId()}","type":"balance","chainId":8453,"account":"${account}","token":"${BASE_USDC}","locked":"1","blockNumber":${block}}]}`;
    for (const block of ['1e400', '-0', '12345678901234567890', '"12345678901234567890"', '1e3', '"1e3"']) {
      const res = await call(api, 'POST', '/indexer/events', {
        raw: ev(block),
        headers: { 'x-indexer-key': api.indexerKey },
      });
      expect([block, res.status]).toEqual([block, 400]);
    }
    // A funded account's route with an exact number there is quoted: only the number itself refuses the others.
    const body = JSON.stringify(route({ address: await fundedAddress(), delegations: { x: 0 } }));
    expect((await call(api, 'POST', '/intents/route', { raw: body })).status).toBe(200);
    const exponent =
      'body.account.delegations.x is written with an exponent: send plain decimals (amounts and block numbers as decimal strings)';
    const inexact =
      'body.account.delegations.x must be an exact number (finite, not -0, integers within ±2^53; larger amounts as decimal strings)';
    for (const [v, message] of [
      ['1e400', exponent],
      ['-0', inexact],
      ['123456789012345678901234', inexact],
    ]) {
      const res = await call(api, 'POST', '/intents/route', { raw: body.replace('"x":0', `"x":${v}`) });
      expect([v, res.status, res.json.message]).toEqual([v, 400, message]);
    }
  });
  test('22.3 1,000 levels of nesting in a free-form field is 400 naming the depth limit', async () => {
    // The field, down to the level past the limit, and the rule.
    const tooDeep = (field: string) =>
      new RegExp(`^body\\.${field.replace(/\./g, '\\.')}(\\.a)+ is nested deeper than ${LIMITS.depth} levels$`);
    const address = await fundedAddress();
    expect(
      (await call(api, 'POST', '/intents/route', { body: route({ address, delegations: nested(LIMITS.depth - 3) }) }))
        .status,
    ).toBe(200);
    const res = await call(api, 'POST', '/intents/route', { body: route({ address, delegations: nested(1000) }) });
    expect([res.status, res.json.message]).toEqual([400, expect.stringMatching(tooDeep('account.delegations'))]);
    expect(
      (
        await call(api, 'POST', '/analytics/events', {
          body: { events: [stepOpenEvent({ session_properties: { deep: nested(LIMITS.depth - 5) } })] },
        })
      ).json.accepted,
    ).toBe(1);
    const analytics = await call(api, 'POST', '/analytics/events', {
      body: { events: [stepOpenEvent({ session_properties: { deep: nested(1000) } })] },
    });
    expect([analytics.status, analytics.json.message]).toEqual([
      400,
      expect.stringMatching(tooDeep('events.0.session_properties.deep')),
    ]);
    // The deposit processor's bodies have no free-form field: nesting in a registration is an unknown property,
    // refused by the schema before the depth limit is looked at (either names the field), in the deposit error body;
    // the same registration without it is accepted.
    const valid = await registration();
    const deposits = await call(api, 'POST', `${DP}/register-managed`, {
      body: { account: { ...valid.account, deep: nested(1000) } },
    });
    const detail = deposits.json.details?.[0];
    expect([deposits.status, deposits.json.code, deposits.json.error, detail?.path.slice(0, 3), detail?.code]).toEqual([
      400,
      'VALIDATION_ERROR',
      expect.stringMatching(
        /^body\.account\.deep(\.a)* (must NOT have additional properties|is nested deeper than \d+ levels)$/,
      ),
      ['body', 'account', 'deep'],
      expect.stringMatching(/^(additionalProperties|maxDepth)$/),
    ]);
    expect((await call(api, 'POST', `${DP}/register-managed`, { body: valid })).status).toBe(201);
  });
});

describe('22.4 encodings, authentication first, headers, content types', () => {
  test('22.4 Content-Encoding gzip with a body that is not gzip is 400', async () => {
    const res = await call(api, 'POST', '/intents/route', {
      raw: 'not gzip at all',
      headers: { 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    const good = await fetch(`${api.url}/intents/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': api.apiKey },
      body: zlib.gzipSync('{"bad":'),
    });
    expect(good.status).toBe(400);
  });
  test('22.4 without a key: 401 before the body is read (malformed or too large)', async () => {
    const noKey = { 'x-api-key': '' };
    const malformed = await call(api, 'POST', '/intents/route', { raw: '{"oops', headers: noKey });
    expect(malformed.status).toBe(401);
    const large = await call(api, 'POST', '/deposit-processor/setup', {
      raw: `{"x":"${'a'.repeat(2_000_000)}"}`,
      headers: noKey,
    });
    expect(large.status).toBe(401);
    expect(large.json.error).toBe('Authentication is required');
    const indexer = await call(api, 'POST', '/indexer/events', {
      raw: '{"oops',
      headers: { 'x-indexer-key': 'wrong' },
    });
    expect(indexer.status).toBe(401);
  });
  test('22.4 routes without an API key still read their bodies', async () => {
    const res = await call(api, 'POST', '/analytics/events', {
      body: { events: [stepOpenEvent()] },
      headers: { 'x-api-key': '' },
    });
    expect(res.status).toBe(200);
    expect(res.json.accepted).toBe(1);
  });
  test('22.4 an oversized header is 431 with a JSON body', async () => {
    const res = await rawRequest(port(), `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.text).message).toMatch(/header/i);
  });
  test("22.4 an unknown content type is 415 in the host's error body", async () => {
    const res = await call(api, 'POST', '/intents/route', {
      raw: JSON.stringify(route()),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    const deposit = await call(api, 'POST', '/deposit-processor/register-managed', {
      raw: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(deposit.status).toBe(415);
    expect(deposit.json.error).toBeTruthy();
    const blanc = await call(api, 'POST', '/quotes', {
      raw: 'x',
      headers: { 'content-type': 'text/plain', 'x-api-version': '2026-04.blanc' },
    });
    expect([blanc.status, blanc.json.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });
});

describe('22.9 bodies and headers as documented', () => {
  test('22.9 a version error on the deposit processor is the deposit error body', async () => {
    const res = await call(api, 'GET', '/deposit-processor/chains', { headers: { 'x-api-version': '1999-01.bogus' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(expect.objectContaining({ error: expect.any(String), code: 'VALIDATION_ERROR' }));
    expect(res.json.message).toBeUndefined();
  });
  test('22.9 a deposit error body carries a deposit code or VALIDATION_ERROR only', async () => {
    const res = await call(api, 'POST', '/deposit-processor/register-managed', { body: {} });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('VALIDATION_ERROR');
  });
  test('22.9 an additionalProperties detail names the property', async () => {
    const res = await call(api, 'POST', '/analytics/ingest-token', { body: { sessionId: 's', bogus: 1 } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/body\.bogus/);
  });
  test('22.9 every compliance answer, errors included, is no-store', async () => {
    for (const [method, path, headers] of [
      ['POST', '/deposit-processor/compliance/sessions', { 'x-api-key': '' }],
      ['POST', '/deposit-processor/compliance/sessions', {}],
      ['GET', '/deposit-processor/compliance/sessions/nope', {}],
      ['POST', '/deposit-processor/compliance/verification', {}],
      ['POST', '/deposit-processor/compliance/callbacks/persona', { 'x-api-key': '' }],
    ] as const) {
      const res = await call(api, method, path, {
        body: method === 'GET' ? undefined : {},
        headers: headers as Record<string, string>,
      });
      expect([path, res.status < 500, res.headers.get('cache-control')]).toEqual([path, true, 'no-store']);
    }
  });
});

describe('22.10 analytics as documented', () => {
  test('22.10 the ingest-token route is also served under /deposit-processor', async () => {
    const res = await call(api, 'POST', '/deposit-processor/analytics/ingest-token', { body: { sessionId: 's-1' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const events = await call(api, 'POST', '/analytics/events', {
      body: { events: [stepOpenEvent()] },
      headers: { authorization: `Bearer ${res.json.token}` },
    });
    expect(events.json.attributed).toBe(true);
    const anonymous = await call(api, 'POST', '/deposit-processor/analytics/ingest-token', {
      body: {},
      headers: { 'x-api-key': '' },
    });
    expect([anonymous.status, anonymous.json.error]).toEqual([401, 'Authentication is required']);
  });
  test('22.10 last_step is refused on every event type', async () => {
    const res = await call(api, 'POST', '/analytics/events', {
      body: {
        events: [
          stepOpenEvent({ last_step: 'amount' }),
          {
            ...stepOpenEvent({ last_step: 'x' }),
            event: 'deposit_modal_correlator_observed',
            correlator_type: 'deposit_address',
            correlator_value: '0x1',
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(
      res.json.rejected.map((r: { index: number; problems: { field: string }[] }) => [
        r.index,
        r.problems.map((p) => p.field),
      ]),
    ).toEqual([
      [0, ['last_step']],
      [1, ['last_step']],
    ]);
  });
});

describe('22.5 unattributed analytics are metered and capped', () => {
  const limits = (v: { perAddressPerMinute: number; perOriginPerMinute: number; cap: number }) =>
    Object.assign(api.services.config, { analyticsUnattributed: v });
  // The suite speaks for several clients through X-Forwarded-For, as a proxy on this host would.
  beforeAll(() => Object.assign(api.services.config, { trustedProxies: parseAddressRanges(['127.0.0.1']) }));
  afterAll(() => Object.assign(api.services.config, { trustedProxies: [] }));
  const send = (address: string, origin: string, n = 1, token?: string) =>
    call(api, 'POST', '/analytics/events', {
      body: { events: Array.from({ length: n }, () => stepOpenEvent()) },
      headers: { 'x-forwarded-for': address, origin, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  const run = `${Date.now() % 100_000}`;
  afterAll(() => limits({ perAddressPerMinute: 100_000, perOriginPerMinute: 100_000, cap: 10_000_000 }));

  test('22.5 without a token: per client address, per origin, then refused 429; a token is not metered so', async () => {
    limits({ perAddressPerMinute: 3, perOriginPerMinute: 5, cap: 10_000_000 });
    const origin = `https://site-${run}.example`;
    expect((await send(`10.5.${run.length}.1`, origin, 3)).status).toBe(200);
    const over = await send(`10.5.${run.length}.1`, origin);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await send(`10.6.${run.length}.1`, origin, 2)).status).toBe(200); // another address: its own count, but the origin's 5 are used
    expect((await send(`10.7.${run.length}.1`, origin)).status).toBe(429);
    const token = (await call(api, 'POST', '/analytics/ingest-token', { body: {} })).json.token;
    const attributed = await send(`10.5.${run.length}.1`, origin, 1, token);
    expect([attributed.status, attributed.json.attributed]).toEqual([200, true]);
  });
  test('22.5 without a token: over the storage cap, refused', async () => {
    limits({ perAddressPerMinute: 1000, perOriginPerMinute: 1000, cap: 0 });
    const res = await send(`10.8.${run.length}.1`, `https://cap-${run}.example`);
    expect(res.status).toBe(429);
    expect(res.json.message).toMatch(/ingest token/);
  });
});
