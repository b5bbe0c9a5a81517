/**
 * The one IP address parser and its text forms. One scanner reads an address into 32-bit words (the
 * form the ASN tables keep and CIDR matching uses); bytes, canonical text and the rate-limit
 * subject derive from them. parseIpv4 and parseIpv6 are lenient and allocation-free, for the rows
 * of the ASN data set (which also use the decimal number form); parseIp takes the strict text
 * forms, for addresses that decide something (SSRF guard, Tor list). Ranges: lib/ip/ranges.ts.
 */

export interface IpAddress {
  family: 4 | 6;
  words: Uint32Array;
  bytes: Uint8Array;
}

export function parseIpv4(text: string): number {
  if (text.indexOf('.') >= 0) return dottedQuad(text, 0, text.length, false);
  if (!/^\d{1,10}$/.test(text)) return -1;
  const value = Number(text);
  return value <= 0xffffffff ? value : -1;
}

/**
 * An IPv6 address (text with '::', an IPv4 tail or a zone, or the decimal number form) into
 * four 32-bit words, most significant first. False when malformed. Scans characters without
 * splitting: the data set has a hundred thousand ranges to read at start-up.
 */
export function parseIpv6(text: string, out: Uint32Array): boolean {
  return scanIpv6(text, out, false);
}

/**
 * Parses an address in the strict text forms that DNS answers and WHATWG URL parsing give;
 * undefined otherwise. IPv4: a dotted quad without leading zeros (010.0.0.1 is octal to inet_aton:
 * an ambiguous address must not be classified). IPv6: RFC 4291 text, an optional IPv4 tail and
 * zone, brackets.
 */
export function parseIp(text: string): IpAddress | undefined {
  if (text.indexOf(':') < 0) {
    const value = dottedQuad(text, 0, text.length, true);
    return value < 0 ? undefined : ipFromWords(4, Uint32Array.of(value));
  }
  const plain = text.charCodeAt(0) === 91 && text.charCodeAt(text.length - 1) === 93 ? text.slice(1, -1) : text;
  const words = new Uint32Array(4);
  return scanIpv6(plain, words, true) ? ipFromWords(6, words) : undefined;
}

function ipFromWords(family: 4 | 6, words: Uint32Array): IpAddress {
  const bytes = new Uint8Array(words.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [k, word] of words.entries()) view.setUint32(4 * k, word);
  return { family, words, bytes };
}

export function isIpv4Mapped(words: Uint32Array): boolean {
  return words.length === 4 && words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

/**
 * One spelling per address, so two texts name the same address exactly when equal: IPv4 dotted,
 * IPv4-mapped IPv6 as its IPv4 (a dual-stack socket reports IPv4 clients that way), other IPv6 in
 * RFC 5952 form without a zone; undefined when parseIp refuses the text.
 */
export function canonicalIp(text: string): string | undefined {
  const ip = parseIp(text);
  if (!ip) return undefined;
  if (ip.family === 4 || isIpv4Mapped(ip.words)) return dottedText(ip.words[ip.words.length - 1]!);
  const groups = Array.from({ length: 8 }, (_, g) =>
    g % 2 === 0 ? ip.words[g >> 1]! >>> 16 : ip.words[g >> 1]! & 0xffff,
  );
  let best = -1;
  let bestLength = 1; // a single zero group is written out, not shortened to '::'
  for (let g = 0; g < 8; g++) {
    let end = g;
    while (end < 8 && groups[end] === 0) end++;
    if (end - g > bestLength) [best, bestLength] = [g, end - g];
    g = Math.max(g, end);
  }
  const hex = (list: number[]) => list.map((group) => group.toString(16)).join(':');
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLength))}`;
}

function dottedText(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

const subjectWords = new Uint32Array(4);

/**
 * The bucket a client falls into for rate limits: its IPv4 address, or for IPv6 its /64. A
 * subscriber gets a whole /64, so counting single IPv6 addresses would hand out endless buckets.
 */
export function rateLimitSubject(address: string): string {
  if (address.indexOf(':') < 0 || !parseIpv6(address, subjectWords)) return address;
  return `${(subjectWords[0]! >>> 16).toString(16)}:${(subjectWords[0]! & 0xffff).toString(16)}:${(subjectWords[1]! >>> 16).toString(16)}:${(subjectWords[1]! & 0xffff).toString(16)}::/64`;
}

/**
 * The /48 an IPv6 client lies in (a site's usual allocation), as text; undefined for IPv4. The
 * login limits hold a whole site to one budget: a dozen /64s of one site are one attacker.
 */
export function ipv6SiteSubject(address: string): string | undefined {
  if (address.indexOf(':') < 0 || !parseIpv6(address, subjectWords)) return undefined;
  return `${(subjectWords[0]! >>> 16).toString(16)}:${(subjectWords[0]! & 0xffff).toString(16)}:${(subjectWords[1]! >>> 16).toString(16)}::/48`;
}

function dottedQuad(text: string, start: number, end: number, strict: boolean): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      if (strict && digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      digits++;
    } else {
      return -1;
    }
  }
  return parts === 4 ? value : -1;
}

const scanGroups = new Uint16Array(8);

function scanIpv6(text: string, out: Uint32Array, strict: boolean): boolean {
  const zone = text.indexOf('%');
  const end = zone < 0 ? text.length : zone;
  if (text.indexOf(':') < 0) return !strict && decimalToWords(text.slice(0, end), out);
  let n = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < end) {
    if (n === 8) return false;
    const groupStart = i;
    let value = 0;
    let digits = 0;
    for (let h = hexValue(text.charCodeAt(i)); h >= 0 && i < end; h = hexValue(text.charCodeAt(++i))) {
      value = value * 16 + h;
      digits++;
    }
    if (i < end && text.charCodeAt(i) === 46) {
      const v4 = n <= 6 ? dottedQuad(text, groupStart, end, strict) : -1;
      if (v4 < 0) return false;
      scanGroups[n++] = v4 >>> 16;
      scanGroups[n++] = v4 & 0xffff;
      break;
    }
    if (digits === 0 || digits > 4) return false;
    scanGroups[n++] = value;
    if (i === end) break;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i++;
    } else if (i === end) {
      return false;
    }
  }
  if (gap < 0 ? n !== 8 : n > 7) return false;
  const zeros = 8 - n;
  const group = (k: number) => (gap < 0 || k < gap ? scanGroups[k]! : k < gap + zeros ? 0 : scanGroups[k - zeros]!);
  for (let w = 0; w < 4; w++) out[w] = (group(2 * w) * 0x10000 + group(2 * w + 1)) >>> 0;
  return true;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function decimalToWords(digits: string, out: Uint32Array): boolean {
  if (!/^\d{1,39}$/.test(digits)) return false;
  let value = BigInt(digits);
  if (value >> 128n !== 0n) return false;
  for (let w = 3; w >= 0; w--) {
    out[w] = Number(value & 0xffffffffn);
    value >>= 32n;
  }
  return true;
}
