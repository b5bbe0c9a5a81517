import { parseIp, type IpAddress } from './address.ts';

/**
 * CIDR ranges and the two sets of special ranges. They differ on purpose, because they answer
 * different questions:
 * - "non-public" (SSRF guard): may the server connect here? Anything that is not plain public
 *   unicast is refused, documentation and benchmarking blocks, the translation prefixes (mapped,
 *   NAT64, 6to4, Teredo: they embed an IPv4 address the IPv4 checks would never see) and all IPv6
 *   outside 2000::/3 included: a wrong "yes" lets a post reach an internal service.
 * - "never in an ASN" (ASN lookup): can this address belong to a network at all? Only the
 *   ranges no network announces (private, loopback, link-local, CGNAT, multicast and reserved)
 *   are answered "unknown" without a search. Mapped addresses are looked up as their IPv4; 6to4,
 *   Teredo and the rest are searched like any address: a wrong answer costs a statistics line.
 */

export interface Cidr extends IpAddress {
  prefix: number;
}

export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || !address) return undefined;
  const ip = parseIp(address);
  if (!ip) return undefined;
  const max = ip.family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix <= max ? { ...ip, prefix } : undefined;
}

/** True when the address lies inside the CIDR (same family only: a mapped ::ffff:a.b.c.d is not a.b.c.d). */
export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  return ip.family === cidr.family && wordsInCidr(ip.words, cidr);
}

function wordsInCidr(words: Uint32Array, cidr: Cidr): boolean {
  for (let k = 0, bits = cidr.prefix; bits > 0; k++, bits -= 32) {
    const mask = bits >= 32 ? -1 : ~(0xffffffff >>> bits);
    if (((words[k]! ^ cidr.words[k]!) & mask) !== 0) return false;
  }
  return true;
}

function cidrs(list: string[]): Cidr[] {
  return list.map((text) => parseCidr(text)!);
}

function namedRanges(list: [string, string][]): [Cidr, string][] {
  return list.map(([text, name]) => [parseCidr(text)!, name]);
}

// IANA special-purpose IPv4 registry and RFC 6890: none of these is a public web server.
const nonPublicIpv4 = namedRanges([
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

// Checked in order, the narrow blocks first; whatever is left must still lie in 2000::/3.
// Translation and tunnel prefixes (mapped, compatible, NAT64, 6to4, Teredo) are refused whole:
// they embed an IPv4 address, often a private one, that the checks above would never see.
const nonPublicIpv6 = namedRanges([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['::/96', 'IPv4-compatible'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'local NAT64'],
  ['100::/64', 'discard-only'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
  ['2001::/32', 'Teredo'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['3fff::/20', 'documentation'],
]);
const globalUnicast = parseCidr('2000::/3')!;

export function specialRange(ip: IpAddress): string | undefined {
  const table = ip.family === 4 ? nonPublicIpv4 : nonPublicIpv6;
  for (const [cidr, name] of table) if (inCidr(ip, cidr)) return name;
  if (ip.family === 6 && !inCidr(ip, globalUnicast)) return 'outside global unicast (2000::/3)';
  return undefined;
}

const loopbacks = [parseCidr('127.0.0.0/8')!, parseCidr('::1/128')!];

/** True for an address literal of this machine's loopback (127.0.0.0/8 or ::1); false for names. */
export function isLoopbackAddress(text: string): boolean {
  const ip = parseIp(text);
  return ip !== undefined && loopbacks.some((cidr) => inCidr(ip, cidr));
}

export function isPublicAddress(text: string): boolean {
  const ip = parseIp(text);
  return ip !== undefined && specialRange(ip) === undefined;
}

// Never announced by any network: private, loopback, link-local, shared (CGNAT), multicast and reserved.
const neverInAsnIpv4 = cidrs([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/3',
]);
const neverInAsnIpv6 = cidrs(['::/127', 'fc00::/7', 'fe80::/10', 'ff00::/8']);
const ipv4Word = new Uint32Array(1);

export function isPrivateIpv4(value: number): boolean {
  ipv4Word[0] = value;
  return inAny(ipv4Word, neverInAsnIpv4);
}

export function isPrivateIpv6(words: Uint32Array): boolean {
  return inAny(words, neverInAsnIpv6);
}

function inAny(words: Uint32Array, list: Cidr[]): boolean {
  for (const cidr of list) if (wordsInCidr(words, cidr)) return true;
  return false;
}
