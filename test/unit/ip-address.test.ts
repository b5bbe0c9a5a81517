import assert from 'node:assert/strict';
import { SocketAddress } from 'node:net';
import { describe, test } from 'node:test';
import {
  canonicalIp,
  ipv6SiteSubject,
  isIpv4Mapped,
  parseIp,
  parseIpv4,
  parseIpv6,
  rateLimitSubject,
} from '../../lib/ip/address.ts';
import { inCidr, isPrivateIpv4, isPrivateIpv6, parseCidr, specialRange } from '../../lib/ip/ranges.ts';

const ip = (text: string) => {
  const parsed = parseIp(text);
  assert.ok(parsed, `${text} parses`);
  return parsed;
};

describe('parsing the strict text forms', () => {
  test('IPv4 dotted quads and IPv6 with ::, an IPv4 tail, brackets and a zone', () => {
    assert.deepEqual([...ip('192.0.2.1').words], [0xc0000201]);
    assert.deepEqual([...ip('192.0.2.1').bytes], [192, 0, 2, 1]);
    assert.deepEqual([...ip('::').words], [0, 0, 0, 0]);
    assert.deepEqual([...ip('::1').words], [0, 0, 0, 1]);
    assert.deepEqual([...ip('1::').words], [0x00010000, 0, 0, 0]);
    assert.deepEqual([...ip('::ffff:1.2.3.4').words], [0, 0, 0xffff, 0x01020304]);
    assert.deepEqual([...ip('2001:DB8::1').bytes], [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(ip('[2001:db8::1]'), ip('2001:db8:0:0:0:0:0:1'));
    assert.equal(ip('::ffff:1.2.3.4').family, 6);
  });

  test('a zone index on IPv6 is ignored, whatever follows the %', () => {
    for (const text of ['fe80::1%eth0', 'fe80::1%1', 'fe80::1%', '[fe80::1%eth0]'])
      assert.deepEqual(ip(text), ip('fe80::1'), text);
  });

  test('forms that other parsers read differently are refused', () => {
    // Leading zeros are octal to inet_aton; decimal and hex forms are what URL parsing has already resolved.
    for (const text of ['010.0.0.1', '1.2.3.04', '::ffff:01.2.3.4', '2130706433', '0x7f.1', '0x7f000001', '127.1']) {
      assert.equal(parseIp(text), undefined, text);
    }
  });

  test('a zone or brackets on IPv4, and malformed text, are refused', () => {
    for (const text of [
      '1.2.3.4%eth0',
      '[1.2.3.4]',
      '',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      'localhost',
      ':::1',
      '1::2::3',
      ':1',
      '1:',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1.2.3',
      '[::1',
      'g::1',
    ]) {
      assert.equal(parseIp(text), undefined, text);
    }
  });

  test('the ASN parsers also take the decimal number form and leading zeros, to the same words', () => {
    assert.equal(parseIpv4('16909060'), 0x01020304);
    assert.equal(parseIpv4('001.002.003.004'), 0x01020304);
    const words = new Uint32Array(4);
    assert.ok(parseIpv6('42540766411282592856903984951653826561', words));
    assert.deepEqual([...words], [...ip('2001:db8::1').words]);
    for (const text of ['2001:db8::1', '::ffff:1.2.3.4', 'fe80::1%eth0', '1:2:3:4:5:6:7:8']) {
      assert.ok(parseIpv6(text, words), text);
      assert.deepEqual([...words], [...ip(text).words], text);
    }
  });
});

describe('canonical text', () => {
  test('IPv4 and every spelling of an IPv4-mapped address give the dotted quad', () => {
    for (const text of ['1.2.3.4', '::ffff:1.2.3.4', '::FFFF:102:304', '0:0:0:0:0:ffff:1.2.3.4', '[::ffff:102:304]']) {
      assert.equal(canonicalIp(text), '1.2.3.4', text);
    }
    assert.equal(isIpv4Mapped(ip('::ffff:1.2.3.4').words), true);
    assert.equal(isIpv4Mapped(ip('::1.2.3.4').words), false);
  });

  test('IPv6 is written in RFC 5952 form', () => {
    const cases: [string, string][] = [
      ['2001:0DB8:0000:0000:0000:0000:00ab:0002', '2001:db8::ab:2'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // a single zero group stays
      ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'], // the longest run is shortened
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // of equal runs, the first
      ['0:0:0:0:0:0:0:0', '::'],
      ['0:0:0:0:0:0:0:1', '::1'],
      ['1:0:0:0:0:0:0:0', '1::'],
      ['::1.2.3.4', '::102:304'], // IPv4-compatible is not IPv4-mapped
      ['fe80::1%eth0', 'fe80::1'],
      ['[2606:4700:4700::1111]', '2606:4700:4700::1111'],
    ];
    for (const [text, canonical] of cases) assert.equal(canonicalIp(text), canonical, text);
  });

  test("IPv6 canonical text is the spelling Node's sockets report", () => {
    for (const text of [
      '2001:db8::1',
      '2001:db8:0:0:1:0:0:1',
      '2001:0:0:1:0:0:0:1',
      'fe80::a:b:c:d',
      '1:2:3:4:5:6:7:8',
      '1::8',
      '2606:4700:4700::1111',
    ]) {
      assert.equal(canonicalIp(text), new SocketAddress({ address: text, family: 'ipv6' }).address, text);
    }
  });

  test('what is not an address has no canonical text', () => {
    for (const text of ['', 'example.com', '1.2.3.4%eth0', '010.0.0.1', '2130706433'])
      assert.equal(canonicalIp(text), undefined, text);
  });
});

describe('CIDR ranges', () => {
  test('prefixes inside and across the 32-bit words', () => {
    assert.equal(inCidr(ip('203.0.113.255'), parseCidr('203.0.113.0/24')!), true);
    assert.equal(inCidr(ip('203.0.114.0'), parseCidr('203.0.113.0/24')!), false);
    assert.equal(inCidr(ip('8.8.8.8'), parseCidr('0.0.0.0/0')!), true);
    assert.equal(inCidr(ip('128.0.0.0'), parseCidr('0.0.0.0/1')!), false);
    assert.equal(inCidr(ip('2001:db8:1:2:ffff::1'), parseCidr('2001:db8:1:2::/64')!), true);
    assert.equal(inCidr(ip('2001:db8:1:3::1'), parseCidr('2001:db8:1:2::/64')!), false);
    assert.equal(inCidr(ip('2001:db8:0:0:8000::'), parseCidr('2001:db8::/65')!), false);
    assert.equal(inCidr(ip('2001:db8::7fff:0:0:0'), parseCidr('2001:db8::/65')!), true);
    assert.equal(inCidr(ip('::1'), parseCidr('::/127')!), true);
    assert.equal(inCidr(ip('::2'), parseCidr('::/127')!), false);
    assert.equal(inCidr(ip('::1'), parseCidr('::1')!), true, 'a bare address is one host');
  });

  test('families never match each other', () => {
    assert.equal(inCidr(ip('::ffff:10.0.0.1'), parseCidr('10.0.0.0/8')!), false);
    assert.equal(inCidr(ip('10.0.0.1'), parseCidr('::/0')!), false);
  });

  test('malformed ranges are refused', () => {
    for (const text of [
      '10.0.0.0/33',
      '::/129',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/8/8',
      'localhost/8',
      '/8',
      '010.0.0.0/8',
    ]) {
      assert.equal(parseCidr(text), undefined, text);
    }
  });
});

describe('the two sets of special ranges', () => {
  // [address, SSRF special range (undefined: public), never in an ASN]
  const cases: [string, string | undefined, boolean][] = [
    ['8.8.8.8', undefined, false],
    ['10.0.0.1', 'private', true],
    ['100.64.0.1', 'shared address space (CGNAT)', true],
    ['127.0.0.1', 'loopback', true],
    ['169.254.169.254', 'link-local', true],
    ['0.1.2.3', 'this network', true],
    ['224.0.0.1', 'multicast', true],
    ['240.0.0.1', 'reserved', true],
    ['255.255.255.255', 'broadcast', true],
    ['192.0.2.1', 'documentation', false], // never fetched, but a data set may still list it
    ['198.18.0.1', 'benchmarking', false],
    ['192.88.99.1', '6to4 relay anycast', false],
    ['2606:4700:4700::1111', undefined, false],
    ['::', 'unspecified', true],
    ['::1', 'loopback', true],
    ['fd00::1', 'unique local', true],
    ['fe80::1', 'link-local', true],
    ['ff02::1', 'multicast', true],
    ['::ffff:10.0.0.1', 'IPv4-mapped', false], // the ASN lookup reads it as its IPv4 address
    ['64:ff9b::a00:1', 'NAT64', false],
    ['2002:a00:1::1', '6to4', false],
    ['2001::1', 'Teredo', false],
    ['2001:db8::1', 'documentation', false],
    ['1000::1', 'outside global unicast (2000::/3)', false],
  ];
  for (const [text, ssrf, neverInAsn] of cases) {
    test(`${text}: ${ssrf ?? 'public'} to the preview guard, ${neverInAsn ? '' : 'not '}skipped by the ASN lookup`, () => {
      const parsed = ip(text);
      assert.equal(specialRange(parsed), ssrf);
      const asnPrivate = parsed.family === 4 ? isPrivateIpv4(parsed.words[0]!) : isPrivateIpv6(parsed.words);
      assert.equal(asnPrivate, neverInAsn);
    });
  }
});

describe('rate-limit subject', () => {
  test('an IPv4 address is its own subject', () => {
    assert.equal(rateLimitSubject('192.0.2.1'), '192.0.2.1');
  });

  test('an IPv6 address counts as its /64, whatever the spelling', () => {
    assert.equal(rateLimitSubject('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(rateLimitSubject('2001:0DB8:0001:0002:ffff:ffff:ffff:fffe'), '2001:db8:1:2::/64');
    assert.equal(rateLimitSubject('2001:db8:1:3::1'), '2001:db8:1:3::/64');
    assert.equal(rateLimitSubject('::1'), '0:0:0:0::/64');
  });

  test('what is not an address is its own subject', () => {
    assert.equal(rateLimitSubject('not-an-ip'), 'not-an-ip');
    assert.equal(rateLimitSubject('1::2::3'), '1::2::3');
  });
});

describe('IPv6 site subject (/48)', () => {
  test('every /64 of one /48 is the same site; IPv4 and what is not an address have none', () => {
    assert.equal(ipv6SiteSubject('2001:db8:1:2::1'), '2001:db8:1::/48');
    assert.equal(ipv6SiteSubject('2001:0db8:0001:ffff::7'), '2001:db8:1::/48');
    assert.equal(ipv6SiteSubject('2001:db8:2::1'), '2001:db8:2::/48');
    assert.equal(ipv6SiteSubject('192.0.2.1'), undefined);
    assert.equal(ipv6SiteSubject('not-an-ip'), undefined);
  });
});
