import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { emptyFolder } from '../helpers.ts';
import { prepareDataDir } from '../../lib/host/folders.ts';

test('without variables every setting has its documented default', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.dataDir, resolve('./data'));
  assert.equal(config.dbPath, join(resolve('./data'), 'board.db'));
  assert.equal(config.mediaDir, join(resolve('./data'), 'media'));
  assert.equal(config.origin, 'http://localhost:8080');
  assert.equal(config.trustProxy, false);
  assert.equal(config.torExitsFile, join(resolve('./data'), 'tor-exits.txt'));
  assert.equal(config.maxUpload, 8_388_608);
  assert.equal(config.previewEnabled, true);
  assert.deepEqual(config.previewAllow, []);
  assert.deepEqual(config.previewPorts, [80, 443]);
  assert.equal(config.youtubeOembed, 'https://www.youtube.com/oembed');
  assert.equal(config.scryptLogN, 17);
  assert.equal(config.notifyUrl, '');
  assert.equal(config.contact, '');
  assert.equal(config.metrics, undefined, 'no metrics listener unless BOARD_METRICS_PORT is set');
  assert.equal(config.litestream, false);
  assert.equal(config.diskLowBytes, 500 * 2 ** 20);
  assert.equal(config.impressionBeacon, false, 'page GETs count, no beacon');
  assert.ok(Object.isFrozen(config));
});

test('an empty or blank variable counts as unset', () => {
  const config = loadConfig({ PORT: '', HOST: '  ', BOARD_ORIGIN: '', BOARD_TRUST_PROXY: '' });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.origin, 'http://localhost:8080');
  assert.equal(config.trustProxy, false);
});

test('every variable is read', () => {
  const config = loadConfig({
    PORT: '9000',
    HOST: '0.0.0.0',
    BOARD_DATA: '/srv/board',
    BOARD_ORIGIN: 'https://board.example/',
    BOARD_TRUST_PROXY: '1',
    BOARD_TOR_EXITS: '/etc/board/exits.txt',
    BOARD_MAX_UPLOAD: '100000',
    BOARD_PREVIEW: '0',
    BOARD_PREVIEW_ALLOW: '127.0.0.1/32, 10.0.0.0/8',
    BOARD_PREVIEW_PORTS: '80,443,8080',
    BOARD_YOUTUBE_OEMBED: 'http://127.0.0.1:9999/oembed',
    BOARD_ASN_DB: '/opt/asn',
    BOARD_SCRYPT_LOGN: '14',
    BOARD_METRICS_PORT: '9464',
    BOARD_METRICS_HOST: '127.0.0.2',
  });
  assert.equal(config.port, 9000);
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.dataDir, '/srv/board');
  assert.equal(config.dbPath, '/srv/board/board.db');
  assert.equal(config.mediaDir, '/srv/board/media');
  assert.equal(config.origin, 'https://board.example', 'the origin without path or trailing slash');
  assert.equal(config.trustProxy, true);
  assert.equal(config.torExitsFile, '/etc/board/exits.txt');
  assert.equal(config.maxUpload, 100_000);
  assert.equal(config.previewEnabled, false);
  assert.deepEqual(config.previewAllow, ['127.0.0.1/32', '10.0.0.0/8']);
  assert.deepEqual(config.previewPorts, [80, 443, 8080]);
  assert.equal(config.youtubeOembed, 'http://127.0.0.1:9999/oembed');
  assert.equal(config.asnDb, '/opt/asn');
  assert.equal(config.scryptLogN, 14);
  assert.deepEqual(config.metrics, { port: 9464, host: '127.0.0.2' });
});

test('the default origin follows PORT', () => {
  assert.equal(loadConfig({ PORT: '3000' }).origin, 'http://localhost:3000');
});

test('BOARD_TOR_EXITS defaults to a file inside BOARD_DATA', () => {
  assert.equal(loadConfig({ BOARD_DATA: '/srv/b' }).torExitsFile, '/srv/b/tor-exits.txt');
});

test('a bad PORT is a ConfigError naming the variable', () => {
  for (const port of ['abc', '70000', '-1', '80.5', '1e3']) {
    assert.throws(
      () => loadConfig({ PORT: port }),
      (err: unknown) => err instanceof ConfigError && err.message.includes('PORT'),
      port,
    );
  }
});

test('BOARD_TRUST_PROXY accepts only 0 or 1 (or false/true)', () => {
  assert.equal(loadConfig({ BOARD_TRUST_PROXY: '0' }).trustProxy, false);
  assert.equal(loadConfig({ BOARD_TRUST_PROXY: 'true' }).trustProxy, true);
  for (const value of ['yes', '2', 'on']) {
    assert.throws(() => loadConfig({ BOARD_TRUST_PROXY: value }), ConfigError, value);
  }
  assert.throws(() => loadConfig({ BOARD_PREVIEW: 'maybe' }), ConfigError);
});

test('BOARD_SCRYPT_LOGN must lie within 14–20', () => {
  assert.equal(loadConfig({ BOARD_SCRYPT_LOGN: '20' }).scryptLogN, 20);
  for (const value of ['13', '21', 'x']) {
    assert.throws(() => loadConfig({ BOARD_SCRYPT_LOGN: value }), ConfigError, value);
  }
});

test('BOARD_POW takes 0, 1 or a cost from 100 to 100000000; every refusal lists these values', () => {
  for (const [raw, value] of [
    ['', 0],
    ['0', 0],
    ['1', 1],
    ['100', 100],
    ['100000000', 100_000_000],
  ] as const)
    assert.equal(loadConfig({ BOARD_POW: raw }).pow, value, raw);
  for (const raw of ['2', '99', '100000001', 'x', '-1', '1e3']) {
    assert.throws(
      () => loadConfig({ BOARD_POW: raw }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.startsWith('BOARD_POW: ') &&
        err.message.endsWith('; use 0 (off), 1 (the recommended cost) or a cost from 100 to 100000000'),
      raw,
    );
  }
});

test('BOARD_LIMITS is a factor ≥ 0, decimals allowed, default 1', () => {
  assert.equal(loadConfig({}).limitsFactor, 1);
  assert.equal(loadConfig({ BOARD_LIMITS: '0' }).limitsFactor, 0);
  assert.equal(loadConfig({ BOARD_LIMITS: '0.5' }).limitsFactor, 0.5);
  assert.equal(loadConfig({ BOARD_LIMITS: '10' }).limitsFactor, 10);
  for (const value of ['-1', 'x', '1e3', '.5', '1,5', '5000']) {
    assert.throws(
      () => loadConfig({ BOARD_LIMITS: value }),
      (err: unknown) => err instanceof ConfigError && err.message.includes('BOARD_LIMITS'),
      value,
    );
  }
});

test('BOARD_WORKERS is 1 by default, a whole number 1–64, or auto for one per core', () => {
  assert.equal(loadConfig({}).workers, 1);
  assert.equal(loadConfig({ BOARD_WORKERS: '4' }).workers, 4);
  assert.equal(loadConfig({ BOARD_WORKERS: 'auto' }).workers, Math.min(64, availableParallelism()));
  assert.equal(loadConfig({ BOARD_WORKERS: 'AUTO' }).workers, Math.min(64, availableParallelism()));
  for (const value of ['0', '65', '-1', '1.5', 'all']) {
    assert.throws(
      () => loadConfig({ BOARD_WORKERS: value }),
      (err: unknown) =>
        err instanceof ConfigError && err.message === `BOARD_WORKERS: "${value}" must be a whole number 1–64 or auto`,
      value,
    );
  }
});

test('BOARD_NEW_ACCOUNT_HOURS is whole hours, default 24', () => {
  assert.equal(loadConfig({}).newAccountSeconds, 86_400);
  assert.equal(loadConfig({ BOARD_NEW_ACCOUNT_HOURS: '0' }).newAccountSeconds, 0);
  assert.throws(() => loadConfig({ BOARD_NEW_ACCOUNT_HOURS: '1.5' }), ConfigError);
});

test('BOARD_ORIGIN must be an http or https URL', () => {
  for (const value of ['not a url', 'board.example', 'ftp://board.example', 'javascript:alert(1)']) {
    assert.throws(
      () => loadConfig({ BOARD_ORIGIN: value }),
      (err: unknown) => err instanceof ConfigError && err.message.includes('BOARD_ORIGIN'),
      value,
    );
  }
});

test('BOARD_NOTIFY_URL is empty by default; else an http or https URL, kept with path and query', () => {
  assert.equal(loadConfig({}).notifyUrl, '');
  assert.equal(loadConfig({ BOARD_NOTIFY_URL: '  ' }).notifyUrl, '');
  assert.equal(
    loadConfig({ BOARD_NOTIFY_URL: 'https://ntfy.sh/board-meldungen' }).notifyUrl,
    'https://ntfy.sh/board-meldungen',
  );
  assert.equal(
    loadConfig({ BOARD_NOTIFY_URL: 'http://127.0.0.1:8090/hook?token=abc' }).notifyUrl,
    'http://127.0.0.1:8090/hook?token=abc',
  );
  for (const value of ['ntfy.sh/board', 'mailto:ops@board.example', 'not a url']) {
    assert.throws(
      () => loadConfig({ BOARD_NOTIFY_URL: value }),
      (err: unknown) => err instanceof ConfigError && err.message.includes('BOARD_NOTIFY_URL'),
      value,
    );
  }
});

test('BOARD_MAX_UPLOAD and BOARD_PREVIEW_PORTS must be whole numbers in range', () => {
  assert.throws(() => loadConfig({ BOARD_MAX_UPLOAD: '8MB' }), ConfigError);
  assert.throws(() => loadConfig({ BOARD_MAX_UPLOAD: '0' }), ConfigError);
  assert.throws(() => loadConfig({ BOARD_PREVIEW_PORTS: '80,http' }), ConfigError);
  assert.throws(() => loadConfig({ BOARD_PREVIEW_PORTS: '0' }), ConfigError);
});

test('prepareDataDir creates the data and media folders', () => {
  const parent = emptyFolder('board-config-');
  try {
    const config = loadConfig({ BOARD_DATA: join(parent, 'nested', 'data') });
    prepareDataDir(config);
    prepareDataDir(config); // twice is fine
    writeFileSync(join(config.mediaDir, 'probe'), 'x');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('prepareDataDir on an unusable path is a ConfigError naming BOARD_DATA', () => {
  const parent = emptyFolder('board-config-');
  try {
    const file = join(parent, 'a-file');
    writeFileSync(file, 'not a folder');
    const config = loadConfig({ BOARD_DATA: join(file, 'data') });
    assert.throws(
      () => prepareDataDir(config),
      (err: unknown) => err instanceof ConfigError && err.message.includes('BOARD_DATA'),
    );
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('every on/off setting takes 1 or 0, or true or false in any letter case, and the error names the rule', () => {
  for (const [raw, value] of [
    ['1', true],
    ['TRUE', true],
    ['True', true],
    ['0', false],
    ['false', false],
    ['FALSE', false],
  ] as const) {
    assert.equal(loadConfig({ BOARD_TRUST_PROXY: raw }).trustProxy, value, raw);
    assert.equal(loadConfig({ BOARD_PREVIEW: raw }).previewEnabled, value, raw);
    assert.equal(loadConfig({ BOARD_IMPRESSION_BEACON: raw }).impressionBeacon, value, raw);
  }
  assert.throws(() => loadConfig({ BOARD_TRUST_PROXY: 'yes' }), {
    message: 'BOARD_TRUST_PROXY: "yes" must be 1 or 0 (or true or false)',
  });
  assert.throws(() => loadConfig({ BOARD_PREVIEW: 'off' }), {
    message: 'BOARD_PREVIEW: "off" must be 1 or 0 (or true or false)',
  });
  assert.throws(() => loadConfig({ BOARD_IMPRESSION_BEACON: 'on' }), {
    message: 'BOARD_IMPRESSION_BEACON: "on" must be 1 or 0 (or true or false)',
  });
});

test('prepareDataDir on a folder where mkdir answers ENOENT under an existing parent (/proc/nope) fails at once instead of looping', {
  skip: !existsSync('/proc/self') && 'no /proc here',
}, () => {
  const config = loadConfig({ BOARD_DATA: '/proc/nope/deeper' });
  assert.throws(
    () => prepareDataDir(config),
    (err: unknown) =>
      err instanceof ConfigError && /^BOARD_DATA: cannot use \/proc\/nope\/deeper \(ENOENT/.test(err.message),
  );
});

test('BOARD_CONTACT: text or a URL, trimmed; a line break, a bidi control or more than 200 characters stop the start', () => {
  assert.equal(
    loadConfig({ BOARD_CONTACT: '  Matrix: @betrieb:example.org ' }).contact,
    'Matrix: @betrieb:example.org',
  );
  assert.equal(loadConfig({ BOARD_CONTACT: 'https://example.org/kontakt' }).contact, 'https://example.org/kontakt');
  assert.equal(loadConfig({ BOARD_CONTACT: 'ä'.repeat(200) }).contact, 'ä'.repeat(200));
  assert.throws(() => loadConfig({ BOARD_CONTACT: 'Zeile 1\nZeile 2' }), {
    message: /^BOARD_CONTACT: must be one line/,
  });
  assert.throws(() => loadConfig({ BOARD_CONTACT: 'a\u202eb' }), ConfigError);
  assert.throws(() => loadConfig({ BOARD_CONTACT: 'ä'.repeat(201) }), {
    message: 'BOARD_CONTACT: longer than 200 characters',
  });
});

test('BOARD_LITESTREAM is an on/off flag; BOARD_DISK_LOW_MB whole mebibytes, 0 turns the check off', () => {
  assert.equal(loadConfig({ BOARD_LITESTREAM: '1' }).litestream, true);
  assert.equal(loadConfig({ BOARD_DISK_LOW_MB: '0' }).diskLowBytes, 0);
  assert.equal(loadConfig({ BOARD_DISK_LOW_MB: '2048' }).diskLowBytes, 2048 * 2 ** 20);
  assert.throws(() => loadConfig({ BOARD_DISK_LOW_MB: '1.5' }), /BOARD_DISK_LOW_MB: "1\.5" is not a whole number/);
  assert.throws(() => loadConfig({ BOARD_LITESTREAM: 'yes' }), /BOARD_LITESTREAM/);
});

test('BOARD_POW is off by default, 1 or a cost of 100 and more; BOARD_LOGIN_POW is on by default, 0 turns it off', () => {
  assert.equal(loadConfig({}).pow, 0);
  assert.equal(loadConfig({}).loginPow, true, 'a name under a guessing attack asks for work on a default board');
  assert.equal(loadConfig({ BOARD_POW: '1' }).pow, 1);
  assert.equal(loadConfig({ BOARD_POW: '250' }).pow, 250);
  assert.throws(() => loadConfig({ BOARD_POW: '50' }), /BOARD_POW: 50 is too small/);
  assert.equal(loadConfig({ BOARD_LOGIN_POW: '0' }).loginPow, false);
  assert.equal(loadConfig({ BOARD_LOGIN_POW: 'true' }).loginPow, true);
  assert.throws(() => loadConfig({ BOARD_LOGIN_POW: 'aus' }), {
    message: 'BOARD_LOGIN_POW: "aus" must be 1 or 0 (or true or false)',
  });
});
