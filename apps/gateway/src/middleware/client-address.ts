import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/** The first 64 bits of an IPv6 address, expanded: `2001:db8:0:1::/64`. */
function ipv6Prefix64(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * The key a per-address limit counts a client under: its IPv4 address, or the /64 of its IPv6 address (one host
 * usually holds a whole /64, so counting single IPv6 addresses would let it walk around every limit).
 */
export function addressKey(req: Request): string {
  const ip = req.ip ?? 'unknown';
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice('::ffff:'.length);
  return isIPv6(ip) ? ipv6Prefix64(ip) : ip;
}
