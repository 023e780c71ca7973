import http from 'node:http';
import { randomInt } from 'node:crypto';
import { parseAddressRanges } from '../../src/http/client-address';
import { Api, startApi } from '../support/harness';

/**
 * Rules at the API's edge, through HTTP: which address a client has, the Idempotency-Key header, the one amount
 * rule of every host, and a client that stalls its body.
 */
let api: Api;
let seq = 0;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('Client addresses cannot be forged', () => {
  /** Each run connects from its own loopback address (Linux routes all of 127/8 to lo), so no other suite shares its count. */
  const peer = `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;
  const event = () => ({ event: 'deposit_modal_step_open', session_id: `edge-${seq++}`, modal: 'deposit', widget_version: '1.0.0', timestamp: Date.now(), session_properties: {}, funding_method: null, step: 'amount' });
  /** Unattributed analytics events from `peer`, with whatever X-Forwarded-For the client writes. */
  const send = (n: number, forwardedFor?: string) => new Promise<number>((resolve, reject) => {
    const { port } = new URL(api.url);
    const body = JSON.stringify({ events: Array.from({ length: n }, event) });
    const req = http.request({ host: '127.0.0.1', port, localAddress: peer, method: 'POST', path: '/analytics/events', headers: { 'content-type': 'application/json', origin: `https://edge-${peer}.example`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
  const configure = (trustedProxies: string[]) =>
    Object.assign(api.services.config, { trustedProxies: parseAddressRanges(trustedProxies), analyticsUnattributed: { perAddressPerMinute: 2, perOriginPerMinute: 1_000_000, cap: 10_000_000 } });
  afterAll(() => Object.assign(api.services.config, { trustedProxies: [], analyticsUnattributed: { perAddressPerMinute: 10_000_000, perOriginPerMinute: 10_000_000, cap: 1_000_000 } }));

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
