/**
 * IP addresses as 32-bit words, for the ASN tables: parsing and the private ranges that never
 * belong to an autonomous system. Each parser also takes the plain decimal number form.
 */

/** An IPv4 address (dotted quad or decimal number) as an unsigned 32-bit value; -1 when malformed. */
export function parseIpv4(text: string): number {
  if (text.indexOf('.') < 0) {
    if (!/^\d{1,10}$/.test(text)) return -1;
    const value = Number(text);
    return value <= 0xffffffff ? value : -1;
  }
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46; // a final '.' closes the last part
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
    } else {
      return -1;
    }
  }
  return parts === 4 ? value : -1;
}

const groups = new Uint16Array(8);

/**
 * An IPv6 address (text with '::', an IPv4 tail or a zone, or the decimal number form) into
 * four 32-bit words, most significant first. False when malformed. Scans characters without
 * splitting: the data set has a hundred thousand ranges to read at start-up.
 */
export function parseIpv6(text: string, out: Uint32Array): boolean {
  const zone = text.indexOf('%');
  const end = zone < 0 ? text.length : zone;
  if (text.indexOf(':') < 0) return decimalToWords(text.slice(0, end), out);
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
      const v4 = n <= 6 ? parseIpv4(text.slice(groupStart, end)) : -1;
      if (v4 < 0) return false;
      groups[n++] = v4 >>> 16;
      groups[n++] = v4 & 0xffff;
      break;
    }
    if (digits === 0 || digits > 4) return false;
    groups[n++] = value;
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
  const group = (k: number) => (gap < 0 || k < gap ? groups[k]! : k < gap + zeros ? 0 : groups[k - zeros]!);
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

/** Private, loopback, link-local, shared (CGNAT), multicast and reserved IPv4 ranges. */
export function isPrivateIpv4(v: number): boolean {
  const a = v >>> 24;
  const b = (v >>> 16) & 255;
  return a === 0 || a === 10 || a === 127 || a >= 224
    || (a === 100 && b >= 64 && b < 128)
    || (a === 169 && b === 254)
    || (a === 172 && b >= 16 && b < 32)
    || (a === 192 && b === 168);
}

/** Unspecified, loopback, unique-local (fc00::/7), link-local (fe80::/10) and multicast (ff00::/8) IPv6. */
export function isPrivateIpv6(words: Uint32Array): boolean {
  const top = words[0]! >>> 16;
  if (words[0] === 0 && words[1] === 0 && words[2] === 0 && words[3]! <= 1) return true;
  return (top & 0xfe00) === 0xfc00 || (top & 0xffc0) === 0xfe80 || (top & 0xff00) === 0xff00;
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
