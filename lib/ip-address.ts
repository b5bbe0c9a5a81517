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

const hexGroup = /^[0-9a-f]{1,4}$/i;

/**
 * An IPv6 address (text with '::', an IPv4 tail or a zone, or the decimal number form) into
 * four 32-bit words, most significant first. False when malformed.
 */
export function parseIpv6(text: string, out: Uint32Array): boolean {
  const address = text.split('%')[0]!;
  if (/^\d+$/.test(address)) return decimalToWords(address, out);
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return false;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return false;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  for (let w = 0; w < 4; w++) out[w] = (groups[2 * w]! * 0x10000 + groups[2 * w + 1]!) >>> 0;
  return true;
}

/** The 16-bit groups of one side of '::'; an IPv4 tail becomes two groups. */
function groupsOf(side: string): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 < 0) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else if (hexGroup.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function decimalToWords(digits: string, out: Uint32Array): boolean {
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
