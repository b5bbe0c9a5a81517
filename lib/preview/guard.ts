import { isIP } from 'node:net';

/**
 * The preview fetcher's address rules (SSRF guard). Only plain public unicast addresses may be
 * reached: a link in a post must never make the server talk to itself, the local network, the
 * cloud metadata service or anything behind a translation prefix that leads there. IPv6 must
 * lie inside 2000::/3 (global unicast) and outside its special-purpose blocks. BOARD_PREVIEW_ALLOW
 * CIDRs are the only exception (tests on loopback).
 */

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

export interface Cidr extends IpAddress {
  prefix: number;
}

/** Why a fetch was refused before or while connecting. */
export class PreviewBlockedError extends Error {
  constructor(readonly reason: 'scheme' | 'credentials' | 'port' | 'address', message: string) {
    super(message);
    this.name = 'PreviewBlockedError';
  }
}

/** Parses an IP address in the canonical text forms (what DNS and WHATWG URL parsing give); undefined otherwise. */
export function parseIp(text: string): IpAddress | undefined {
  const plain = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const address = plain.split('%')[0]!; // an IPv6 zone index says nothing about the range
  const family = isIP(address);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(address.split('.').map(Number)) };
  if (family === 6) return { family: 6, bytes: parseIpv6(address) };
  return undefined;
}

/** Bytes of an IPv6 address that net.isIP already accepted ('::' gaps and an IPv4 tail allowed). */
function parseIpv6(text: string): Uint8Array {
  let tail: number[] = [];
  let rest = text;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail = text.slice(lastColon + 1).split('.').map(Number);
    rest = text.slice(0, lastColon + 1) + '0:0'; // placeholder groups, overwritten below
  }
  const [head, back] = rest.includes('::') ? rest.split('::') as [string, string] : [rest, undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const front = groups(head);
  const end = back === undefined ? [] : groups(back);
  const all = back === undefined ? front : [...front, ...new Array<number>(8 - front.length - end.length).fill(0), ...end];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

/** Parses `address/prefix` (or a bare address: one host); undefined when malformed. */
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
  if (ip.family !== cidr.family) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip.bytes[i]! & mask) !== (cidr.bytes[i]! & mask)) return false;
  }
  return true;
}

function ranges(list: [string, string][]): [Cidr, string][] {
  return list.map(([cidr, name]) => [parseCidr(cidr)!, name]);
}

// IANA special-purpose IPv4 registry and RFC 6890: none of these is a public web server.
const specialIpv4 = ranges([
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
const specialIpv6 = ranges([
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

/** The name of the special range an address lies in, or undefined for a plain public unicast address. */
export function specialRange(ip: IpAddress): string | undefined {
  const table = ip.family === 4 ? specialIpv4 : specialIpv6;
  for (const [cidr, name] of table) if (inCidr(ip, cidr)) return name;
  if (ip.family === 6 && !inCidr(ip, globalUnicast)) return 'outside global unicast (2000::/3)';
  return undefined;
}

/** True for a plain public unicast address; false for every special range and for non-addresses. */
export function isPublicAddress(text: string): boolean {
  const ip = parseIp(text);
  return ip !== undefined && specialRange(ip) === undefined;
}

/** Decides for one address; the message says why it was refused. */
export type AddressPolicy = (address: string) => { allowed: true } | { allowed: false; why: string };

/**
 * The fetcher's policy: public unicast, or inside one of the allow-list CIDRs.
 * Throws on a malformed CIDR, so a typo in BOARD_PREVIEW_ALLOW fails at start-up.
 */
export function createAddressPolicy(allow: readonly string[]): AddressPolicy {
  const allowed = allow.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`BOARD_PREVIEW_ALLOW: "${text}" is not an address range (CIDR)`);
    return cidr;
  });
  return (address) => {
    const ip = parseIp(address);
    if (!ip) return { allowed: false, why: `"${address}" is not an IP address` };
    if (allowed.some((cidr) => inCidr(ip, cidr))) return { allowed: true };
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PreviewBlockedError('scheme', `scheme ${url.protocol} is not http or https`);
  if (url.username || url.password) throw new PreviewBlockedError('credentials', 'URLs with credentials are not fetched');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!ports.includes(port)) throw new PreviewBlockedError('port', `port ${port} is not allowed`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host)) {
    const verdict = policy(host);
    if (!verdict.allowed) throw new PreviewBlockedError('address', verdict.why);
  }
}
