import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type dns from 'node:dns';
import { loadConfig } from '../../src/config';
import { post } from '../../src/webhooks/send';
import { addressAllowed, checkTarget, TargetRefused } from '../../src/webhooks/url-policy';

const production = loadConfig({ NODE_ENV: 'production' }).webhooks;
const development = loadConfig({ NODE_ENV: 'development' }).webhooks;

/** A resolver that answers every name with the given addresses (what a hostile DNS server could do). */
const answering = (...addresses: string[]) =>
  ((_host: string, _opts: unknown, cb: (err: Error | null, a: dns.LookupAddress[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    )) as unknown as typeof dns.lookup;

test('production refuses loopback, private, link-local and other non-public addresses; allows public unicast', () => {
  for (const a of [
    '127.0.0.1',
    '127.8.9.1',
    '::1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    'fe80::1',
    'fd12::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
  ]) {
    expect([a, addressAllowed(a, production)]).toEqual([a, false]);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
    expect([a, addressAllowed(a, production)]).toEqual([a, true]);
  // Development allows loopback (tests and npm start deliver to local receivers), still not private ranges.
  expect(addressAllowed('127.0.0.1', development)).toBe(true);
  expect(addressAllowed('10.0.0.1', development)).toBe(false);
});

test('URLs are checked for scheme, credentials and IP-literal hosts; DNS answers are checked before use', async () => {
  await expect(checkTarget('http://hooks.example.com/x', production, answering('93.184.216.34'))).rejects.toThrow(
    'url must use https',
  );
  await expect(checkTarget('https://127.0.0.1/x', production)).rejects.toThrow(TargetRefused);
  await expect(checkTarget('https://[::1]/x', production)).rejects.toThrow(TargetRefused);
  await expect(checkTarget('https://a:b@hooks.example.com/x', production)).rejects.toThrow('credentials');
  await expect(checkTarget('https://internal.example.com/x', production, answering('10.1.2.3'))).rejects.toThrow(
    'resolves to a non-public address (10.1.2.3)',
  );
  // One private answer among public ones is enough to refuse (the connection could use either).
  await expect(
    checkTarget('https://mixed.example.com/x', production, answering('93.184.216.34', '192.168.0.7')),
  ).rejects.toThrow(TargetRefused);
  await expect(checkTarget('https://localhost/x', production)).rejects.toThrow(TargetRefused); // real resolution, via /etc/hosts
  await expect(
    checkTarget('https://hooks.example.com/x', production, answering('93.184.216.34')),
  ).resolves.toBeInstanceOf(URL);
});

test('delivery resolves then connects to the checked address: a name that resolves to loopback never reaches it in production', async () => {
  let hits = 0;
  const server = http
    .createServer((_req, res) => {
      hits++;
      res.end('ok');
    })
    .listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  try {
    const policy = { ...production, allowHttp: true }; // only loopback stands between the request and the server
    const refused = await post(`http://localhost:${port}/hook`, {}, '{}', 2000, policy);
    expect(refused.statusCode).toBeUndefined();
    expect(refused.error).toMatch(/non-public address/);
    expect(hits).toBe(0);
    const allowed = await post(`http://localhost:${port}/hook`, {}, '{}', 2000, development);
    expect(allowed.statusCode).toBe(200);
    expect(hits).toBe(1);
  } finally {
    server.close();
  }
});
