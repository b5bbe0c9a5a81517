import { createReadStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isIpv4Mapped, parseIpv4, parseIpv6 } from '../ip/address.ts';
import { isPrivateIpv4, isPrivateIpv6 } from '../ip/ranges.ts';

/** An autonomous system as the statistics show it; ASN 0 is "unknown". */
export interface AsnInfo {
  asn: number;
  name: string;
}

export const unknownAsn: Readonly<AsnInfo> = Object.freeze({ asn: 0, name: 'unknown' });

export interface AsnLoadResult {
  loaded: boolean;
  folder: string;
  v4Ranges: number;
  v6Ranges: number;
  asns: number;
  tableBytes: number;
  ms: number;
  error?: string;
}

export interface AsnDb {
  lookup(ip: string): AsnInfo;
  readonly ready: Promise<AsnLoadResult>;
  close(): void;
}

const v4Files = ['asn-ipv4.csv', 'asn-ipv4-num.csv'];
const v6Files = ['asn-ipv6.csv', 'asn-ipv6-num.csv'];
const chunkBytes = 64 * 1024;

/**
 * Starts loading `folder` (CSV rows `range_start,range_end,asn,"organisation"`, inclusive ranges
 * sorted by start) into sorted typed arrays. Reading and parsing run in small slices between
 * requests, so start-up and pages never wait for it. '' means no data set: everything is unknown.
 */
export function openAsnDb(folder: string): AsnDb {
  let tables: AsnTables | undefined;
  let stopped = false;
  const started = performance.now();
  const ready = (async (): Promise<AsnLoadResult> => {
    const result: AsnLoadResult = { loaded: false, folder, v4Ranges: 0, v6Ranges: 0, asns: 0, tableBytes: 0, ms: 0 };
    try {
      const v4 = firstExisting(folder, v4Files);
      const v6 = firstExisting(folder, v6Files);
      if (!v4 && !v6)
        throw new Error(folder ? `no ${v4Files[0]} or ${v6Files[0]} in ${folder}` : 'BOARD_ASN_DB is empty');
      const names = new NameTableBuilder();
      const v4Ranges = new RangeBuilder(1, v4 ? statSync(v4).size / 40 : 0);
      const v6Ranges = new RangeBuilder(4, v6 ? statSync(v6).size / 70 : 0);
      const isStopped = () => stopped;
      if (v4)
        await readRows(v4, isStopped, (start, end, asn, rest) => addRange(v4Ranges, 1, start, end, asn, rest, names));
      if (v6)
        await readRows(v6, isStopped, (start, end, asn, rest) => addRange(v6Ranges, 4, start, end, asn, rest, names));
      if (stopped) throw new Error('stopped');
      tables = new AsnTables(v4Ranges.finish(), v6Ranges.finish(), names.finish());
      Object.assign(result, {
        loaded: true,
        v4Ranges: tables.v4.count,
        v6Ranges: tables.v6.count,
        asns: tables.names.count,
        tableBytes: tables.bytes(),
      });
    } catch (err) {
      result.error = (err as Error).message;
    }
    result.ms = Math.round(performance.now() - started);
    return result;
  })();
  return {
    lookup: (ip) => tables?.lookup(ip) ?? unknownAsn,
    ready,
    close() {
      stopped = true;
    },
  };
}

function firstExisting(folder: string, names: string[]): string | undefined {
  if (!folder) return undefined;
  return names.map((n) => join(folder, n)).find((p) => existsSync(p));
}

type RowSink = (start: string, end: string, asn: number, rest: string) => void;

async function readRows(path: string, isStopped: () => boolean, sink: RowSink): Promise<void> {
  const stream = createReadStream(path, { highWaterMark: chunkBytes });
  let carry: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (isStopped()) return;
      const buf: Buffer = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const lastNewline = buf.lastIndexOf(10);
      if (lastNewline < 0) {
        carry = buf;
        continue;
      }
      parseLines(buf.toString('utf8', 0, lastNewline), sink);
      carry = Buffer.from(buf.subarray(lastNewline + 1));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (carry.length) parseLines(carry.toString('utf8'), sink);
  } finally {
    stream.destroy();
  }
}

function parseLines(text: string, sink: RowSink): void {
  let pos = 0;
  while (pos < text.length) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = text.length;
    const c1 = text.indexOf(',', pos);
    const c2 = c1 < 0 ? -1 : text.indexOf(',', c1 + 1);
    const c3 = c2 < 0 ? -1 : text.indexOf(',', c2 + 1);
    if (c3 > 0 && c3 < eol) {
      const asn = Number(text.slice(c2 + 1, c3));
      if (Number.isInteger(asn) && asn > 0 && asn <= 0xffffffff) {
        sink(text.slice(pos, c1), text.slice(c1 + 1, c2), asn, text.slice(c3 + 1, eol));
      }
    }
    pos = eol + 1;
  }
}

const scratchStart = new Uint32Array(4);
const scratchEnd = new Uint32Array(4);

function addRange(
  ranges: RangeBuilder,
  width: 1 | 4,
  start: string,
  end: string,
  asn: number,
  rest: string,
  names: NameTableBuilder,
): void {
  const ok =
    width === 1
      ? parseV4Into(start, scratchStart) && parseV4Into(end, scratchEnd)
      : parseIpv6(start, scratchStart) && parseIpv6(end, scratchEnd);
  if (ok) ranges.push(scratchStart, scratchEnd, names.indexOf(asn, rest));
}

function parseV4Into(text: string, out: Uint32Array): boolean {
  const value = parseIpv4(text);
  if (value < 0) return false;
  out[0] = value;
  return true;
}

interface NameTable {
  count: number;
  asns: Uint32Array;
  ends: Uint32Array;
  text: Buffer;
}

class NameTableBuilder {
  private index = new Map<number, number>();
  private asns: number[] = [];
  private ends: number[] = [];
  // Names are copied into a buffer at once: a string slice would keep its whole file chunk alive.
  private text = Buffer.alloc(1 << 20);
  private used = 0;
  private lastAsn = -1;
  private lastIndex = 0;

  indexOf(asn: number, rest: string): number {
    if (asn === this.lastAsn) return this.lastIndex;
    let i = this.index.get(asn);
    if (i === undefined) {
      i = this.asns.length;
      this.index.set(asn, i);
      this.asns.push(asn);
      const name = unquote(rest);
      const bytes = Buffer.byteLength(name);
      if (this.used + bytes > this.text.length) {
        const bigger = Buffer.alloc(Math.max(this.text.length * 2, this.used + bytes));
        this.text.copy(bigger, 0, 0, this.used);
        this.text = bigger;
      }
      this.used += this.text.write(name, this.used);
      this.ends.push(this.used);
    }
    this.lastAsn = asn;
    this.lastIndex = i;
    return i;
  }

  finish(): NameTable {
    const table = {
      count: this.asns.length,
      asns: Uint32Array.from(this.asns),
      ends: Uint32Array.from(this.ends),
      text: Buffer.from(this.text.subarray(0, this.used)),
    };
    this.index.clear();
    this.asns = [];
    this.ends = [];
    this.text = Buffer.alloc(0);
    return table;
  }
}

function unquote(field: string): string {
  const text = field.endsWith('\r') ? field.slice(0, -1) : field;
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"'))
    return text.slice(1, -1).replaceAll('""', '"').trim();
  return text.trim();
}

interface RangeTable {
  width: number;
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
  asnIndex: Uint32Array;
}

class RangeBuilder {
  private n = 0;
  private sorted = true;
  private starts: Uint32Array;
  private ends: Uint32Array;
  private asnIndex: Uint32Array;
  private readonly width: number;

  constructor(width: number, expectedRows: number) {
    this.width = width;
    const capacity = Math.max(1024, Math.ceil(expectedRows));
    this.starts = new Uint32Array(capacity * width);
    this.ends = new Uint32Array(capacity * width);
    this.asnIndex = new Uint32Array(capacity);
  }

  push(start: Uint32Array, end: Uint32Array, asnIndex: number): void {
    const w = this.width;
    if (this.n === this.asnIndex.length) this.grow();
    const at = this.n * w;
    for (let k = 0; k < w; k++) {
      this.starts[at + k] = start[k]!;
      this.ends[at + k] = end[k]!;
    }
    if (this.n > 0 && compareAt(this.starts, at - w, this.starts, at, w) > 0) this.sorted = false;
    this.asnIndex[this.n++] = asnIndex;
  }

  finish(): RangeTable {
    const w = this.width;
    let starts = this.starts.slice(0, this.n * w);
    let ends = this.ends.slice(0, this.n * w);
    let asnIndex = this.asnIndex.slice(0, this.n);
    if (!this.sorted) {
      // A hand-made data set may be out of order; the binary search needs it sorted by start.
      const order = Array.from({ length: this.n }, (_, i) => i).sort((a, b) =>
        compareAt(starts, a * w, starts, b * w, w),
      );
      const [s, e, x] = [new Uint32Array(starts.length), new Uint32Array(ends.length), new Uint32Array(this.n)];
      order.forEach((from, to) => {
        s.set(starts.subarray(from * w, from * w + w), to * w);
        e.set(ends.subarray(from * w, from * w + w), to * w);
        x[to] = asnIndex[from]!;
      });
      [starts, ends, asnIndex] = [s, e, x];
    }
    this.starts = this.ends = this.asnIndex = new Uint32Array(0);
    return { width: w, count: asnIndex.length, starts, ends, asnIndex };
  }

  private grow(): void {
    const bigger = (a: Uint32Array) => {
      const b = new Uint32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.starts = bigger(this.starts);
    this.ends = bigger(this.ends);
    this.asnIndex = bigger(this.asnIndex);
  }
}

function compareAt(a: Uint32Array, i: number, b: Uint32Array, j: number, width: number): number {
  for (let k = 0; k < width; k++) {
    const d = a[i + k]! - b[j + k]!;
    if (d !== 0) return d;
  }
  return 0;
}

class AsnTables {
  private readonly key = new Uint32Array(4);
  readonly v4: RangeTable;
  readonly v6: RangeTable;
  readonly names: NameTable;

  constructor(v4: RangeTable, v6: RangeTable, names: NameTable) {
    this.v4 = v4;
    this.v6 = v6;
    this.names = names;
  }

  lookup(ip: string): AsnInfo {
    const key = this.key;
    if (ip.includes(':')) {
      if (!parseIpv6(ip, key)) return unknownAsn;
      if (isIpv4Mapped(key)) {
        key[0] = key[3]!;
        return this.find(this.v4, isPrivateIpv4(key[0]));
      }
      return this.find(this.v6, isPrivateIpv6(key));
    }
    const value = parseIpv4(ip);
    if (value < 0) return unknownAsn;
    key[0] = value;
    return this.find(this.v4, isPrivateIpv4(value));
  }

  private find(table: RangeTable, isPrivate: boolean): AsnInfo {
    if (isPrivate || table.count === 0) return unknownAsn;
    const { width: w, starts, ends } = table;
    let lo = 0;
    let hi = table.count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareAt(starts, mid * w, this.key, 0, w) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0 || compareAt(this.key, 0, ends, found * w, w) > 0) return unknownAsn;
    const i = table.asnIndex[found]!;
    const { asns, ends: nameEnds, text } = this.names;
    return { asn: asns[i]!, name: text.toString('utf8', i === 0 ? 0 : nameEnds[i - 1]!, nameEnds[i]!) };
  }

  bytes(): number {
    const arrays = [
      this.v4.starts,
      this.v4.ends,
      this.v4.asnIndex,
      this.v6.starts,
      this.v6.ends,
      this.v6.asnIndex,
      this.names.asns,
      this.names.ends,
    ];
    return arrays.reduce((sum, a) => sum + a.byteLength, this.names.text.byteLength);
  }
}
