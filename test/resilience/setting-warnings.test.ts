import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../lib/config.ts';
import { settingWarnings } from '../../lib/process/setting-warnings.ts';
import { emptyFolder } from '../helpers.ts';
import { startServerProcess } from '../helpers/child-server.ts';

/** Issue 33: a misspelt setting and a proxy with a localhost origin are said at start, one line each. */
const warnings = (env: Record<string, string>, also: string[] = []) => settingWarnings(env, loadConfig(env), also);

test('a misspelt or unknown setting warns, naming the nearest setting; known ones and other variables do not', () => {
  assert.deepEqual(warnings({ BORAD_ORIGIN: 'https://board.example.org' }), [
    'BORAD_ORIGIN is not a setting and is ignored; did you mean BOARD_ORIGIN?',
  ]);
  assert.deepEqual(warnings({ BOARD_WORKER: '2', BOARD_DISK_LOW: '100' }), [
    'BOARD_DISK_LOW is not a setting and is ignored; did you mean BOARD_DISK_LOW_MB?',
    'BOARD_WORKER is not a setting and is ignored; did you mean BOARD_WORKERS?',
  ]);
  assert.deepEqual(
    warnings(
      {
        BOARD_ORIGIN: 'https://board.example.org',
        BOARD_DATA: '/var/lib/board',
        BOARD_LITESTREAM: '1',
        BOARD_DISK_LOW_MB: '100',
        HOME: '/root',
        PATH: '/usr/bin',
        BOARD_WORKER_INDEX: '1',
      },
      ['BOARD_WORKER_INDEX'],
    ),
    [],
  );
});

test('BOARD_TRUST_PROXY=1 with a loopback or localhost BOARD_ORIGIN warns; with a public origin it does not', () => {
  for (const origin of [undefined, 'http://127.0.0.1:8080', 'http://[::1]:8080', 'http://board.localhost']) {
    const env: Record<string, string> = { BOARD_TRUST_PROXY: '1', ...(origin ? { BOARD_ORIGIN: origin } : {}) };
    const lines = warnings(env);
    assert.equal(lines.length, 1, String(origin));
    assert.match(
      lines[0]!,
      /^BOARD_TRUST_PROXY=1 says the board is behind a proxy, but BOARD_ORIGIN is http:\/\/(localhost|127\.0\.0\.1|\[::1\]|board\.localhost)/,
    );
  }
  assert.deepEqual(warnings({ BOARD_TRUST_PROXY: '1', BOARD_ORIGIN: 'https://board.example.org' }), []);
  assert.deepEqual(warnings({}), [], 'no proxy: localhost is right');
});

test('the server prints each warning as one line at start, and starts', { timeout: 60_000 }, async () => {
  const server = await startServerProcess(emptyFolder('board-warn-'), { BORAD_ORIGIN: 'https://board.example.org' });
  try {
    const lines = server.output().split('\n');
    assert.ok(
      lines.includes('board: warning: BORAD_ORIGIN is not a setting and is ignored; did you mean BOARD_ORIGIN?'),
      server.output(),
    );
    // child-server sets BOARD_TRUST_PROXY=1 and leaves BOARD_ORIGIN at its localhost default.
    assert.ok(
      lines.some((l) => l.startsWith('board: warning: BOARD_TRUST_PROXY=1 says')),
      server.output(),
    );
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200);
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
  }
});
