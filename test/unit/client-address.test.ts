import { clientAddress, parseAddressRanges } from '../../src/http/client-address';
import { loadConfig } from '../../src/config';

const proxies = parseAddressRanges(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);

test('Client addresses cannot be forged: with no trusted proxy the peer is the address, whatever X-Forwarded-For says', () => {
  expect(clientAddress('203.0.113.5', '198.51.100.1', [])).toBe('203.0.113.5');
  expect(clientAddress('::ffff:203.0.113.5', '198.51.100.1, 10.0.0.1', [])).toBe('203.0.113.5'); // a dual-stack socket's IPv4 peer
  // Nor may a client that is not a proxy speak for one.
  expect(clientAddress('203.0.113.5', '198.51.100.1', proxies)).toBe('203.0.113.5');
});

test('Client addresses cannot be forged: behind trusted proxies the first untrusted hop from the right is the address', () => {
  expect(clientAddress('10.1.2.3', '198.51.100.1', proxies)).toBe('198.51.100.1');
  // What the client wrote left of its real address is never read.
  expect(clientAddress('10.1.2.3', '1.1.1.1, 2.2.2.2, 198.51.100.1', proxies)).toBe('198.51.100.1');
  // A chain of proxies: each trusted hop hands over to the one before it.
  expect(clientAddress('::ffff:10.1.2.3', '1.1.1.1, 198.51.100.1, 192.0.2.7, 10.9.9.9', proxies)).toBe('198.51.100.1');
  expect(clientAddress('fd00::1', ' 2001:db8::5 ', proxies)).toBe('2001:db8::5');
  // Only proxies all the way: the leftmost hop.
  expect(clientAddress('10.1.2.3', '10.0.0.9', proxies)).toBe('10.0.0.9');
  // No header, or a malformed hop: the last address that could be verified.
  expect(clientAddress('10.1.2.3', '', proxies)).toBe('10.1.2.3');
  expect(clientAddress('10.1.2.3', '198.51.100.1, not-an-address', proxies)).toBe('10.1.2.3');
  expect(clientAddress('10.1.2.3', '198.51.100.1, 0x0a000001', proxies)).toBe('10.1.2.3'); // only standard notation
});

test('Client addresses cannot be forged: TRUSTED_PROXIES is off by default, and a malformed entry stops the process with its name', () => {
  expect(loadConfig({}).trustedProxies).toEqual([]);
  expect(
    loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8 , ::1' }).trustedProxies.map(([a, bits]) => `${a.toString()}/${bits}`),
  ).toEqual(['10.0.0.0/8', '::1/128']);
  expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).toThrow(
    /TRUSTED_PROXIES .*"proxy\.internal" is not an IP address/,
  );
  expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(
    /TRUSTED_PROXIES .*"10\.0\.0\.0\/33" is not a CIDR range/,
  );
});
