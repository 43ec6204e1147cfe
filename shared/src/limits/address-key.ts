import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a per-address limit counts a client under. An IPv6 client is counted by its /64: one
 * subscriber is routinely handed a whole /64, so its 2^64 addresses would otherwise each get a
 * fresh bucket. An IPv4-mapped IPv6 address is its IPv4 address; anything else is kept as it is.
 */
export function addressKey(address: string): string {
  // On every request's path: an IPv4 address (no colon) is itself, with no parsing.
  if (!address.includes(':')) return address;
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zoneless = bare.split('%')[0]!;
  if (!isIPv6(zoneless)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(zoneless);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  return `${expandIPv6(zoneless).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16).toString(16));
}
