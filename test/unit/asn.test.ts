import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openAsnDb, type AsnDb, type AsnLoadResult } from '../../lib/stats/asn.ts';
import { loadConfig } from '../../lib/config.ts';
import { parseIpv4, parseIpv6 } from '../../lib/ip/address.ts';
import { isPrivateIpv4 } from '../../lib/ip/ranges.ts';
import { asnFixtureDir, emptyFolder } from '../helpers.ts';

const unknown = { asn: 0, name: 'unknown' };

function words(ip: string): number[] {
  const out = new Uint32Array(4);
  assert.ok(parseIpv6(ip, out), ip);
  return [...out];
}

describe('IP address parsing', () => {
  test('IPv4 dotted quads and decimal numbers', () => {
    assert.equal(parseIpv4('1.0.0.0'), 16777216);
    assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
    assert.equal(parseIpv4('16777471'), 16777471);
    for (const bad of ['1.2.3', '1.2.3.4.5', '256.1.1.1', '1..2.3', '1.2.3.x', '', '1.2.3.1234', '99999999999']) {
      assert.equal(parseIpv4(bad), -1, bad);
    }
  });

  test('IPv6 with ::, an IPv4 tail, a zone and the decimal form', () => {
    assert.deepEqual(words('2001:200::'), [0x20010200, 0, 0, 0]);
    assert.deepEqual(words('2001:200:1b9:ffff:ffff:ffff:ffff:ffff'), [0x20010200, 0x01b9ffff, 0xffffffff, 0xffffffff]);
    assert.deepEqual(words('::1'), [0, 0, 0, 1]);
    assert.deepEqual(words('::'), [0, 0, 0, 0]);
    assert.deepEqual(words('::ffff:1.2.3.4'), [0, 0, 0xffff, 0x01020304]);
    assert.deepEqual(words('fe80::1%eth0'), [0xfe800000, 0, 0, 1]);
    assert.deepEqual(words('42540528726795050063891204319802818560'), words('2001:200::'));
    assert.deepEqual(words('1:2:3:4:5:6:1.2.3.4'), [0x00010002, 0x00030004, 0x00050006, 0x01020304]);
    assert.deepEqual(words('1::'), [0x00010000, 0, 0, 0]);
    assert.deepEqual(words('A:B:C:D:E:F:0:FFFF'), [0x000a000b, 0x000c000d, 0x000e000f, 0x0000ffff]);
    const out = new Uint32Array(4);
    for (const bad of [
      '1:2:3',
      '1::2::3',
      'g::1',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '1:2:3:4:5:6:7::8:9',
      '1:',
      ':1',
      '1:2:3:4:5:6:7:8:',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1.2.3',
      '1:::2',
      '',
    ]) {
      assert.equal(parseIpv6(bad, out), false, bad);
    }
  });

  test('private and reserved IPv4 ranges', () => {
    for (const ip of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
    ]) {
      assert.ok(isPrivateIpv4(parseIpv4(ip)), ip);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '1.0.0.1']) assert.ok(!isPrivateIpv4(parseIpv4(ip)), ip);
  });
});

describe('ASN lookup on the test fixture', () => {
  let db: AsnDb;
  before(async () => {
    db = openAsnDb(asnFixtureDir);
    assert.equal((await db.ready).loaded, true);
  });

  test('IPv4 and IPv6 addresses inside, at the edges of and outside the ranges', () => {
    assert.deepEqual(db.lookup('1.0.0.0'), { asn: 13335, name: 'Cloudflare, Inc.' });
    assert.deepEqual(db.lookup('1.0.0.255'), { asn: 13335, name: 'Cloudflare, Inc.' });
    assert.deepEqual(db.lookup('1.0.1.0'), unknown);
    assert.deepEqual(db.lookup('8.8.8.8'), { asn: 15169, name: 'Google LLC' });
    assert.deepEqual(db.lookup('8.8.5.1'), unknown);
    assert.deepEqual(db.lookup('2001:4860:4805::1'), { asn: 43515, name: 'Google Ireland Limited' });
    assert.deepEqual(db.lookup('2001:4860:4804:ffff:ffff:ffff:ffff:ffff'), { asn: 15169, name: 'Google LLC' });
    assert.deepEqual(db.lookup('2606:4700:4f::1'), { asn: 209242, name: 'Cloudflare London, LLC' });
    assert.deepEqual(db.lookup('2606:4700:a1::1'), unknown);
    assert.deepEqual(db.lookup('::ffff:8.8.8.8'), { asn: 15169, name: 'Google LLC' });
  });

  test('quoted organisation names keep their commas and quotes', () => {
    assert.deepEqual(db.lookup('2.26.200.1'), { asn: 201907, name: 'LLC "SPUTNIK"' });
  });

  test('private, loopback, malformed and empty addresses are unknown', () => {
    for (const ip of ['10.0.0.1', '192.168.0.10', '127.0.0.1', '::1', 'fd00::1', 'fe80::1', '', 'not-an-ip', '1.2.3']) {
      assert.deepEqual(db.lookup(ip), unknown, ip);
    }
  });
});

describe('ASN data set loading', () => {
  const dirs: string[] = [];
  const folder = (files: Record<string, string>) => {
    const dir = emptyFolder('asn-test-');
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('lookups answer unknown until the data set is loaded', async () => {
    const db = openAsnDb(asnFixtureDir);
    assert.deepEqual(db.lookup('8.8.8.8'), unknown);
    await db.ready;
    assert.equal(db.lookup('8.8.8.8').asn, 15169);
  });

  test('a missing or empty folder loads nothing and every address is unknown', async () => {
    for (const dir of ['', join(tmpdir(), 'no-such-asn-folder'), folder({})]) {
      const db = openAsnDb(dir);
      const result = await db.ready;
      assert.equal(result.loaded, false);
      assert.ok(result.error);
      assert.deepEqual(db.lookup('8.8.8.8'), unknown);
    }
  });

  test('the numeric files, CRLF lines, rows out of order and bad rows', async () => {
    const db = openAsnDb(
      folder({
        'asn-ipv4-num.csv':
          '134744064,134744319,15169,Google LLC\r\nnonsense\r\n16777216,16777471,13335,"Cloudflare, Inc."\r\n1,2,notanumber,x\r\n',
        'asn-ipv6-num.csv':
          '42540528726795050063891204319802818560,42540528727329395276160870415022948351,2500,WIDE Project\n',
      }),
    );
    const result = await db.ready;
    assert.equal(result.loaded, true);
    assert.equal(result.v4Ranges, 2);
    assert.equal(result.v6Ranges, 1);
    assert.deepEqual(db.lookup('8.8.8.8'), { asn: 15169, name: 'Google LLC' });
    assert.deepEqual(db.lookup('1.0.0.7'), { asn: 13335, name: 'Cloudflare, Inc.' });
    assert.deepEqual(db.lookup('2001:200:1b9::1'), { asn: 2500, name: 'WIDE Project' });
  });

  test('close() stops a load that is still running', async () => {
    const db = openAsnDb(loadConfig({ BOARD_DATA: tmpdir() }).asnDb);
    db.close();
    const result = await db.ready;
    assert.equal(result.loaded, false);
    assert.deepEqual(db.lookup('8.8.8.8'), unknown);
  });
});

/** Rows of a CSV of the data set, with the name unquoted; every `step`-th row whose range is clear of its neighbours. */
function sampleRows(path: string, step: number): { start: string; end: string; asn: number; name: string }[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  const rows = [];
  for (let i = step; i < lines.length - 1; i += step) {
    const [start, end, asn] = lines[i]!.split(',', 3) as [string, string, string];
    const rest = lines[i]!.slice(start.length + end.length + asn.length + 3);
    const name = rest.startsWith('"') ? rest.slice(1, -1).replaceAll('""', '"') : rest;
    rows.push({ start, end, asn: Number(asn), name });
  }
  return rows;
}

describe('the bundled data set (@ip-location-db/asn)', () => {
  const dir = loadConfig({ BOARD_DATA: tmpdir() }).asnDb;
  let db: AsnDb;
  let result: AsnLoadResult;
  before(async () => {
    db = openAsnDb(dir);
    result = await db.ready;
  });

  test('BOARD_ASN_DB defaults to the installed package', () => {
    assert.match(dir, /node_modules[/\\]@ip-location-db[/\\]asn$/);
    assert.equal(result.loaded, true, result.error);
    assert.ok(result.v4Ranges > 100_000 && result.v6Ranges > 10_000, JSON.stringify(result));
  });

  test('the tables stay well under 30 MB', (t) => {
    t.diagnostic(
      `loaded ${result.v4Ranges} IPv4 + ${result.v6Ranges} IPv6 ranges, ${result.asns} ASNs in ${result.ms} ms; tables ${(result.tableBytes / 1048576).toFixed(1)} MB`,
    );
    assert.ok(result.tableBytes < 30 * 1024 * 1024);
  });

  test('real IPv4 rows of the CSV: first and last address of each sampled range', () => {
    const rows = sampleRows(join(dir, 'asn-ipv4.csv'), 25_000);
    assert.ok(rows.length >= 10);
    for (const row of rows) {
      assert.deepEqual(
        db.lookup(row.start),
        { asn: row.asn, name: row.name },
        `${row.start} in ${JSON.stringify(row)}`,
      );
      assert.deepEqual(db.lookup(row.end), { asn: row.asn, name: row.name }, `${row.end} in ${JSON.stringify(row)}`);
    }
    assert.deepEqual(db.lookup('8.8.8.8'), { asn: 15169, name: 'Google LLC' });
    assert.deepEqual(db.lookup('1.0.0.1'), { asn: 13335, name: 'Cloudflare, Inc.' });
  });

  test('real IPv6 rows of the CSV', () => {
    const rows = sampleRows(join(dir, 'asn-ipv6.csv'), 5_000);
    assert.ok(rows.length >= 10);
    for (const row of rows) {
      assert.deepEqual(
        db.lookup(row.start),
        { asn: row.asn, name: row.name },
        `${row.start} in ${JSON.stringify(row)}`,
      );
      assert.deepEqual(db.lookup(row.end), { asn: row.asn, name: row.name }, `${row.end} in ${JSON.stringify(row)}`);
    }
    assert.deepEqual(db.lookup('2001:4860:4860::8888'), { asn: 15169, name: 'Google LLC' });
  });

  test('private addresses stay unknown with the full data set', () => {
    for (const ip of ['10.1.2.3', '192.168.178.1', '172.20.0.5', '127.0.0.1', '::1', 'fd12:3456::1', 'fe80::abcd']) {
      assert.deepEqual(db.lookup(ip), unknown, ip);
    }
  });
});
