import type { IncomingMessage } from 'node:http';
import { canonicalIp } from '../ip/address.ts';

/**
 * The caller's address: the socket peer, or behind a trusted proxy the rightmost
 * X-Forwarded-For hop (the one our proxy appended; anything left of it is client-supplied).
 * Used only for rate limits, the Tor check and the visitor hash; never stored or logged.
 */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  let ip = req.socket.remoteAddress ?? '';
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const last = hops.at(-1);
    if (last) ip = last;
  }
  return canonicalIp(ip) ?? ip;
}
