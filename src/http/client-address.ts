import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** An address or CIDR range of a proxy in front of the API, as ipaddr.js parses it. */
export type AddressRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `10.0.0.5`, `10.0.0.0/8`, `::1`, `fd00::/8`; the error names the entry that is neither. */
export function parseAddressRanges(list: string[]): AddressRange[] {
  return list.map((entry) => {
    if (entry.includes('/')) {
      try {
        return ipaddr.parseCIDR(entry);
      } catch {
        throw new Error(`"${entry}" is not a CIDR range`);
      }
    }
    if (!net.isIP(entry)) throw new Error(`"${entry}" is not an IP address`);
    const address = ipaddr.process(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4 peers) as the IPv4 address it is. */
const canonical = (address: string) => (net.isIP(address) ? ipaddr.process(address).toString() : address);

export function isTrusted(address: string, trusted: AddressRange[]): boolean {
  if (!net.isIP(address)) return false;
  const parsed = ipaddr.process(address);
  return trusted.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}

/**
 * The client's address: the connection's peer, unless the peer is a trusted proxy; then the X-Forwarded-For entry
 * that proxy appended (the rightmost), and so on leftwards while each hop is itself a trusted proxy. Entries left of
 * the first untrusted hop are whatever the client wrote and are never read; a malformed entry ends the walk at the
 * last proxy that could be verified.
 */
export function clientAddress(peer: string, forwardedFor: string, trusted: AddressRange[]): string {
  let address = canonical(peer);
  const hops = forwardedFor ? forwardedFor.split(',') : [];
  for (let i = hops.length - 1; i >= 0 && isTrusted(address, trusted); i--) {
    const hop = hops[i].trim();
    if (!net.isIP(hop)) break;
    address = canonical(hop);
  }
  return address;
}
