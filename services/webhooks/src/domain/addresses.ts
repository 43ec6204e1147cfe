import ipaddr from 'ipaddr.js';

/**
 * Whether an endpoint may be reached at `address` (an IP, as resolved when connecting): only
 * addresses ipaddr.js classes as `unicast`, i.e. none of loopback, private (RFC 1918, unique local),
 * link-local (which holds the cloud metadata address 169.254.169.254), carrier-grade NAT,
 * multicast, reserved or unspecified. An IPv4 address written as IPv6 is judged as IPv4.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast';
}

/** The host of a URL when it is an IP literal (`[::1]` without its brackets), else null. */
export function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}
