import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface TargetPolicy {
  allowHttp: boolean;
  allowLoopback: boolean;
  allowPrivate: boolean;
}

export class TargetRefused extends Error {}

/** Address ranges that are never a public receiver; ipaddr.js names every non-`unicast` range. */
export function addressAllowed(address: string, policy: TargetPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range(); // process() unwraps IPv4-mapped IPv6 first
  if (range === 'unicast') return true;
  if (range === 'loopback') return policy.allowLoopback;
  if (['private', 'uniqueLocal', 'carrierGradeNat'].includes(range)) return policy.allowPrivate;
  return false; // link-local (cloud metadata), unspecified, multicast, broadcast, reserved, documentation, ...
}

/** What can be checked without DNS: scheme, credentials, and an IP-literal host. */
export function checkUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new TargetRefused(policy.allowHttp ? 'url must use http or https' : 'url must use https');
  }
  if (url.username || url.password) throw new TargetRefused('url must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !addressAllowed(host, policy))
    throw new TargetRefused(`url points at a non-public address (${host})`);
  return url;
}

type LookupFn = typeof dns.lookup;

/**
 * A `lookup` for http.request: resolves the name, refuses the connection if any answer is not allowed, and hands
 * the checked address to the socket. Checking and connecting use the same answer, so a DNS change in between
 * (rebinding) cannot redirect the request.
 */
export function guardedLookup(policy: TargetPolicy, resolve: LookupFn = dns.lookup): LookupFn {
  return ((
    hostname: string,
    options: dns.LookupOptions,
    callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as dns.LookupAddress[];
      const refused = list.find((a) => !addressAllowed(a.address, policy));
      if (!list.length || refused)
        return callback(
          new TargetRefused(`${hostname} resolves to a non-public address (${refused?.address ?? 'none'})`),
          '',
        );
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  }) as LookupFn;
}

/** The same check at configuration time, so an obviously internal target is refused when it is added. */
export async function checkTarget(raw: string, policy: TargetPolicy, resolve: LookupFn = dns.lookup): Promise<URL> {
  const url = checkUrl(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!net.isIP(host)) {
    await new Promise<void>((ok, fail) =>
      guardedLookup(policy, resolve)(host, {}, (err) =>
        err ? fail(err instanceof TargetRefused ? err : new TargetRefused(`${host} does not resolve`)) : ok(),
      ),
    );
  }
  return url;
}
