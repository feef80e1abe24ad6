import ipaddr from 'ipaddr.js';

/** The leading bits of an IPv6 address that count as one client: a home or a server usually gets a whole /64. */
const ipv6ClientPrefixBytes = 8;

/**
 * Who a request comes from, for the limits counted per client address: its
 * IPv4 address (an IPv4-mapped IPv6 address counted as the IPv4 one), or
 * its IPv6 /64, since a host given a /64 can send from any of its 2^64
 * addresses and would otherwise get a budget for each. `ip` is Express's
 * `req.ip`, read through `TRUST_PROXY`; anything unparsable counts as itself.
 */
export function clientAddressOf(ip: string | undefined): string {
  if (ip === undefined || !ipaddr.isValid(ip)) return ip ?? 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = address.toByteArray().slice(0, ipv6ClientPrefixBytes);
  return `${ipaddr.fromByteArray([...prefix, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}
