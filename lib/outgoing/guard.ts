import { isIP } from 'node:net';
import { parseIp } from '../ip/address.ts';
import { inCidr, parseCidr, specialRange } from '../ip/ranges.ts';

/**
 * The preview fetcher's address rules (SSRF guard). Only plain public unicast addresses may be
 * reached: a link in a post must never make the server talk to itself, the local network, the
 * cloud metadata service or anything behind a translation prefix that leads there. IPv6 must
 * lie inside 2000::/3 (global unicast) and outside its special-purpose blocks. BOARD_PREVIEW_ALLOW
 * CIDRs are the only exception (tests on loopback). The ranges themselves: lib/ip/ranges.ts.
 */

export { parseIp } from '../ip/address.ts';
export { isPublicAddress, parseCidr, specialRange } from '../ip/ranges.ts';

export class PreviewBlockedError extends Error {
  readonly reason: 'scheme' | 'credentials' | 'port' | 'address';
  constructor(reason: PreviewBlockedError['reason'], message: string) {
    super(message);
    this.reason = reason;
    this.name = 'PreviewBlockedError';
  }
}

export type AddressPolicy = (address: string) => { allowed: true } | { allowed: false; why: string };

/**
 * The fetcher's policy: public unicast, or inside one of the allow-list CIDRs; with
 * `publicAllowed` false, only inside them (plain http to a federation test instance).
 * Throws on a malformed CIDR, so a typo in BOARD_PREVIEW_ALLOW fails at start-up.
 */
export function createAddressPolicy(allow: readonly string[], publicAllowed = true): AddressPolicy {
  const allowed = allow.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`BOARD_PREVIEW_ALLOW: "${text}" is not an address range (CIDR)`);
    return cidr;
  });
  return (address) => {
    const ip = parseIp(address);
    if (!ip) return { allowed: false, why: `"${address}" is not an IP address` };
    if (allowed.some((cidr) => inCidr(ip, cidr))) return { allowed: true };
    if (!publicAllowed) return { allowed: false, why: `${address} is outside the allowed ranges (plain http)` };
    const range = specialRange(ip);
    return range === undefined ? { allowed: true } : { allowed: false, why: `${address} is ${range}` };
  };
}

/**
 * Checks a URL before any connection: scheme, credentials, port, and an IP literal host (those
 * skip DNS, so the lookup check never sees them). WHATWG parsing has already turned odd forms
 * (0x7f.1, 2130706433, [::ffff:127.0.0.1]) into canonical ones.
 */
export function checkTarget(url: URL, ports: readonly number[], policy: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PreviewBlockedError('scheme', `scheme ${url.protocol} is not http or https`);
  if (url.username || url.password)
    throw new PreviewBlockedError('credentials', 'URLs with credentials are not fetched');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!ports.includes(port)) throw new PreviewBlockedError('port', `port ${port} is not allowed`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  // Node's own isIP: it is what decides that a connect skips DNS; the policy then parses strictly.
  if (isIP(host)) {
    const verdict = policy(host);
    if (!verdict.allowed) throw new PreviewBlockedError('address', verdict.why);
  }
}
