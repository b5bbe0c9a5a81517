import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { guardedLookup } from '../../lib/outgoing/client.ts';
import {
  checkTarget,
  createAddressPolicy,
  isPublicAddress,
  parseCidr,
  parseIp,
  PreviewBlockedError,
  specialRange,
} from '../../lib/outgoing/guard.ts';

const noAllowList = createAddressPolicy([]);

function rangeOf(address: string): string | undefined {
  const ip = parseIp(address);
  assert.ok(ip, `${address} parses`);
  return specialRange(ip);
}

describe('address classification', () => {
  // Every special IPv4 block, its first, a middle and its last address.
  const refusedIpv4: [string, string[]][] = [
    ['0.0.0.0/8', ['0.0.0.0', '0.1.2.3', '0.255.255.255']],
    ['10.0.0.0/8', ['10.0.0.0', '10.20.30.40', '10.255.255.255']],
    ['100.64.0.0/10', ['100.64.0.0', '100.100.100.100', '100.127.255.255']],
    ['127.0.0.0/8', ['127.0.0.1', '127.0.0.2', '127.255.255.255']],
    ['169.254.0.0/16', ['169.254.0.0', '169.254.169.254', '169.254.255.255']],
    ['172.16.0.0/12', ['172.16.0.0', '172.20.1.1', '172.31.255.255']],
    ['192.0.0.0/24', ['192.0.0.0', '192.0.0.170', '192.0.0.255']],
    ['192.0.2.0/24', ['192.0.2.0', '192.0.2.1', '192.0.2.255']],
    ['192.88.99.0/24', ['192.88.99.0', '192.88.99.1', '192.88.99.255']],
    ['192.168.0.0/16', ['192.168.0.0', '192.168.1.1', '192.168.255.255']],
    ['198.18.0.0/15', ['198.18.0.0', '198.19.1.1', '198.19.255.255']],
    ['198.51.100.0/24', ['198.51.100.0', '198.51.100.7', '198.51.100.255']],
    ['203.0.113.0/24', ['203.0.113.0', '203.0.113.9', '203.0.113.255']],
    ['224.0.0.0/4', ['224.0.0.0', '224.0.0.251', '239.255.255.255']],
    ['240.0.0.0/4', ['240.0.0.0', '250.1.2.3', '255.255.255.254']],
    ['255.255.255.255', ['255.255.255.255']],
  ];
  for (const [range, addresses] of refusedIpv4) {
    test(`IPv4 ${range} is refused`, () => {
      for (const address of addresses) {
        assert.ok(rangeOf(address), `${address} must be special`);
        assert.equal(isPublicAddress(address), false, address);
      }
    });
  }

  test('public IPv4 addresses next to the special blocks are allowed', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.1.255',
      '192.0.3.0',
      '192.88.98.255',
      '192.88.100.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '198.51.99.255',
      '198.51.101.0',
      '203.0.112.255',
      '203.0.114.0',
      '223.255.255.255',
      '93.184.215.14',
    ]) {
      assert.equal(rangeOf(address), undefined, address);
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  const refusedIpv6: [string, string[]][] = [
    ['unspecified ::', ['::']],
    ['loopback ::1', ['::1']],
    ['IPv4-mapped ::ffff:0:0/96', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8', '::ffff:10.0.0.1']],
    ['IPv4-compatible ::/96', ['::127.0.0.1', '::8.8.8.8', '::a00:1']],
    ['NAT64 64:ff9b::/96', ['64:ff9b::7f00:1', '64:ff9b::8.8.8.8', '64:ff9b::a9fe:a9fe']],
    ['local NAT64 64:ff9b:1::/48', ['64:ff9b:1::1', '64:ff9b:1:ffff::a00:1']],
    ['unique local fc00::/7', ['fc00::1', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['link-local fe80::/10', ['fe80::1', 'fe80::1%eth0', 'febf:ffff::1']],
    ['site-local fec0::/10', ['fec0::1']],
    ['multicast ff00::/8', ['ff02::1', 'ff05::2', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['discard 100::/64', ['100::1']],
    ['6to4 2002::/16', ['2002:7f00:1::1', '2002:c000:204::1', '2002::']],
    ['Teredo 2001::/32', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']],
    ['documentation 2001:db8::/32', ['2001:db8::1', '2001:db8:ffff::1']],
    ['ORCHID 2001:10::/28', ['2001:10::1', '2001:1f::1']],
    ['ORCHIDv2 2001:20::/28', ['2001:20::1', '2001:2f:ffff::1']],
    ['benchmarking and other IETF blocks in 2001::/23', ['2001:2::1', '2001:3::1', '2001:1ff::1']],
    ['documentation 3fff::/20', ['3fff::1', '3fff:fff::1']],
    ['outside 2000::/3', ['1000::1', '4000::1', 'e000::1', '5f00::1', '::2']],
  ];
  for (const [range, addresses] of refusedIpv6) {
    test(`IPv6 ${range} is refused`, () => {
      for (const address of addresses) {
        assert.ok(rangeOf(address), `${address} must be special`);
        assert.equal(isPublicAddress(address), false, address);
      }
    });
  }

  test('global unicast IPv6 outside the special blocks is allowed', () => {
    for (const address of [
      '2001:200::1',
      '2001:4860:4860::8888',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82a::200e',
      '2003::1',
      '3ffe::1',
      '2000::1',
      '3fff:1000::1',
    ]) {
      assert.equal(rangeOf(address), undefined, address);
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test('IPv6 text forms parse to the same bytes', () => {
    const bytes = (text: string) => [...parseIp(text)!.bytes];
    assert.deepEqual(bytes('::ffff:127.0.0.1'), bytes('::ffff:7f00:1'));
    assert.deepEqual(bytes('[::1]'), bytes('0:0:0:0:0:0:0:1'));
    assert.deepEqual(bytes('2001:DB8::1'), bytes('2001:db8:0:0:0:0:0:1'));
    assert.deepEqual(bytes('1:2:3:4:5:6:1.2.3.4'), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]);
  });

  test('what is not an address is never public', () => {
    for (const text of [
      '',
      'localhost',
      'example.com',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '0x7f.1',
      '2130706433',
      ':::1',
      '1::2::3',
    ]) {
      assert.equal(parseIp(text), undefined, text);
      assert.equal(isPublicAddress(text), false, text);
    }
  });
});

describe('allow-list', () => {
  test('a CIDR lets exactly its addresses through', () => {
    const policy = createAddressPolicy(['127.0.0.1/32', '10.1.0.0/16', 'fd00::/8']);
    assert.equal(policy('127.0.0.1').allowed, true);
    assert.equal(policy('127.0.0.2').allowed, false);
    assert.equal(policy('10.1.255.255').allowed, true);
    assert.equal(policy('10.2.0.0').allowed, false);
    assert.equal(policy('fd12::1').allowed, true);
    assert.equal(policy('fc00::1').allowed, false);
    assert.equal(policy('8.8.8.8').allowed, true); // public stays allowed
  });

  test('an IPv4 CIDR does not admit the IPv4-mapped IPv6 form of its addresses', () => {
    const policy = createAddressPolicy(['127.0.0.1/32']);
    assert.equal(policy('::ffff:127.0.0.1').allowed, false);
  });

  test('a bare address is one host; odd prefixes are honoured', () => {
    const policy = createAddressPolicy(['127.0.0.5', '192.168.1.128/25']);
    assert.equal(policy('127.0.0.5').allowed, true);
    assert.equal(policy('127.0.0.6').allowed, false);
    assert.equal(policy('192.168.1.200').allowed, true);
    assert.equal(policy('192.168.1.127').allowed, false);
  });

  test('a malformed CIDR is refused at start-up', () => {
    for (const bad of ['127.0.0.1/33', '::1/129', 'localhost/8', '10.0.0.0/8/1', '10.0.0.0/x', '']) {
      assert.equal(parseCidr(bad), undefined, bad);
      assert.throws(() => createAddressPolicy([bad]), /BOARD_PREVIEW_ALLOW/, bad);
    }
  });

  test('BOARD_PREVIEW_ALLOW is checked when the settings are read', () => {
    assert.deepEqual(loadConfig({ BOARD_PREVIEW_ALLOW: '127.0.0.1/32, ::1' }).previewAllow, ['127.0.0.1/32', '::1']);
    assert.throws(() => loadConfig({ BOARD_PREVIEW_ALLOW: '127.0.0.1/32,localhost' }), ConfigError);
    assert.throws(() => loadConfig({ BOARD_PREVIEW_ALLOW: '10.0.0.0/99' }), ConfigError);
  });

  test('refusals say which range', () => {
    const verdict = noAllowList('169.254.169.254');
    assert.equal(verdict.allowed, false);
    assert.match(verdict.allowed ? '' : verdict.why, /link-local/);
  });
});

describe('URL checks before connecting', () => {
  const ports = [80, 443];
  const refusedBecause = (href: string, reason: string, policy = noAllowList, allowedPorts = ports) => {
    assert.throws(
      () => checkTarget(new URL(href), allowedPorts, policy),
      (err: unknown) => {
        assert.ok(err instanceof PreviewBlockedError, String(err));
        assert.equal(err.reason, reason, `${href}: ${err.message}`);
        return true;
      },
    );
  };

  test('odd IPv4 forms are normalised by URL parsing and refused', () => {
    for (const href of [
      'http://0x7f.1/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://0x7f000001/',
      'http://127.0.0.1./',
      'http://0/',
      'http://0x0a.0.0.1/',
      'http://167772161/',
      'http://0xa9.0xfe.0xa9.0xfe/',
      'HTTP://LOCALHOST.localdomain@127.0.0.1/',
    ]) {
      const url = new URL(href);
      if (url.username) {
        refusedBecause(href, 'credentials');
        continue;
      }
      refusedBecause(href, 'address');
    }
    assert.equal(new URL('http://0x7f.1/').hostname, '127.0.0.1');
    assert.equal(new URL('http://2130706433/').hostname, '127.0.0.1');
  });

  test('IPv6 literals are checked, mapped and compatible forms included', () => {
    for (const href of [
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001::1]/',
      'http://[fe80::1]/',
      'http://[fd00::1]/',
      'http://[::]/',
      'http://[0:0:0:0:0:0:0:1]/',
    ]) {
      refusedBecause(href, 'address');
    }
    assert.equal(new URL('http://[::ffff:127.0.0.1]/').hostname, '[::ffff:7f00:1]');
    assert.doesNotThrow(() => checkTarget(new URL('https://[2606:4700:4700::1111]/'), ports, noAllowList));
  });

  test('only http and https, whatever the letter case', () => {
    for (const href of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://example.com/',
      'data:text/html,hi',
      'ws://example.com/',
      'javascript:alert(1)',
    ]) {
      refusedBecause(href, 'scheme');
    }
    assert.doesNotThrow(() => checkTarget(new URL('HTTPS://example.com/'), ports, noAllowList));
  });

  test('only the allowed ports; the default port counts when none is written', () => {
    refusedBecause('http://example.com:8080/', 'port');
    refusedBecause('https://example.com:22/', 'port');
    refusedBecause('http://example.com/', 'port', noAllowList, [443]);
    assert.doesNotThrow(() => checkTarget(new URL('http://example.com/'), ports, noAllowList));
    assert.doesNotThrow(() => checkTarget(new URL('https://example.com:443/'), ports, noAllowList));
    assert.doesNotThrow(() => checkTarget(new URL('http://example.com:8080/'), [8080], noAllowList));
  });

  test('credentials in the URL are refused', () => {
    refusedBecause('http://user:pass@example.com/', 'credentials');
  });

  test('host names pass this check: their addresses are checked at lookup', () => {
    assert.doesNotThrow(() => checkTarget(new URL('http://localhost/'), ports, noAllowList));
  });
});

describe('guarded DNS lookup', () => {
  const lookupWith = (answer: LookupAddress[], allow: string[] = []) => {
    const lookup = guardedLookup(createAddressPolicy(allow), async () => answer);
    return (options: { all?: boolean; family?: number }) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
        lookup('site.test', options, (err, address, family) => resolve({ err, address, family }));
      });
  };

  test('an answer mixing a public and a private address is refused whole', async () => {
    for (const answer of [
      [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      [
        { address: '127.0.0.1', family: 4 },
        { address: '93.184.215.14', family: 4 },
      ],
      [
        { address: '2606:4700:4700::1111', family: 6 },
        { address: '::1', family: 6 },
      ],
      [
        { address: '93.184.215.14', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ],
    ]) {
      for (const all of [true, false]) {
        const { err } = await lookupWith(answer)({ all });
        assert.ok(err instanceof PreviewBlockedError, JSON.stringify(answer));
        assert.equal(err.reason, 'address');
      }
    }
  });

  test('a private answer is refused even when the caller wants only the other family', async () => {
    const { err } = await lookupWith([
      { address: '93.184.215.14', family: 4 },
      { address: 'fd00::1', family: 6 },
    ])({ family: 4 });
    assert.ok(err instanceof PreviewBlockedError);
  });

  test('a public answer is handed on in both callback shapes', async () => {
    const answer = [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ];
    const all = await lookupWith(answer)({ all: true });
    assert.equal(all.err, null);
    assert.deepEqual(all.address, answer);
    const one = await lookupWith(answer)({});
    assert.equal(one.err, null);
    assert.equal(one.address, '93.184.215.14');
    assert.equal(one.family, 4);
  });

  test('the allow-list applies to DNS answers too', async () => {
    const { err, address } = await lookupWith([{ address: '127.0.0.1', family: 4 }], ['127.0.0.1/32'])({ all: true });
    assert.equal(err, null);
    assert.deepEqual(address, [{ address: '127.0.0.1', family: 4 }]);
    const refused = await lookupWith(
      [
        { address: '127.0.0.1', family: 4 },
        { address: '127.0.0.2', family: 4 },
      ],
      ['127.0.0.1/32'],
    )({ all: true });
    assert.ok(refused.err instanceof PreviewBlockedError);
  });

  test('DNS failures are passed on', async () => {
    const lookup = guardedLookup(noAllowList, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    });
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('nowhere.test', { all: true }, (e) => resolve(e)),
    );
    assert.equal(err?.code, 'ENOTFOUND');
    const empty = await lookupWith([])({ all: true });
    assert.equal(empty.err?.code, 'ENOTFOUND');
  });
});
