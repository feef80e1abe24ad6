import { clientAddressOf } from './client-address';

describe('clientAddressOf', () => {
  it.each<[string, string | undefined, string]>([
    ['an IPv4 address as it is', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped IPv6 address as its IPv4 one', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address as its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['another address of the same /64 as the same client', '2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['the IPv6 loopback as its /64', '::1', '::/64'],
    ['no address as "unknown"', undefined, 'unknown'],
    ['something unparsable as itself', 'not-an-ip', 'not-an-ip'],
  ])('counts %s', (_case, ip, expected) => {
    expect(clientAddressOf(ip)).toBe(expected);
  });

  it('counts two /64s apart', () => {
    expect(clientAddressOf('2001:db8:1:2::1')).not.toBe(clientAddressOf('2001:db8:1:3::1'));
  });
});
