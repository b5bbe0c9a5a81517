import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../lib/config.ts';
import { checkSettingNames, settingWarnings } from '../../lib/process/setting-warnings.ts';
import { emptyFolder } from '../helpers.ts';
import { startServerProcess } from '../helpers/child-server.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/**
 * A variable that looks like a setting but is none stops the start with one line naming the
 * nearest setting (a misspelt setting would be ignored: BOARD_REGISTRATON=invite left the board
 * open); a proxy with a localhost origin is a warning, one line, and the board starts.
 */
const warnings = (env: Record<string, string>) => settingWarnings(loadConfig(env));

/** The line checkSettingNames refuses the environment with, or undefined when it passes. */
function refusal(env: Record<string, string>, also: string[] = []): string | undefined {
  try {
    checkSettingNames(env, also);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
}

test('a misspelt or unknown setting is refused in one line naming the nearest setting; known ones and other variables pass', () => {
  assert.equal(
    refusal({ BOARD_REGISTRATON: 'invite' }),
    'BOARD_REGISTRATON is not a setting; did you mean BOARD_REGISTRATION?',
  );
  assert.equal(
    refusal({ BORAD_ORIGIN: 'https://board.example.org' }),
    'BORAD_ORIGIN is not a setting; did you mean BOARD_ORIGIN?',
  );
  // A name without the BOARD_ prefix is one within two typos (two neighbours swapped, a letter dropped), and only then.
  assert.equal(
    refusal({ BAORD_ORIGN: 'https://board.example.org' }),
    'BAORD_ORIGN is not a setting; did you mean BOARD_ORIGIN?',
  );
  assert.equal(refusal({ BAORD_ORGN: 'https://board.example.org', BRD_DTA: '/x' }), undefined);
  assert.equal(
    refusal({ board_registration: 'invite' }),
    'board_registration is not a setting; did you mean BOARD_REGISTRATION?',
  );
  assert.equal(
    refusal({ BOARD_WORKER: '2', BOARD_DISK_LOW: '100' }),
    'BOARD_DISK_LOW is not a setting; did you mean BOARD_DISK_LOW_MB? BOARD_WORKER is not a setting; did you mean BOARD_WORKERS?',
  );
  assert.equal(
    refusal(
      {
        BOARD_ORIGIN: 'https://board.example.org',
        BOARD_DATA: '/var/lib/board',
        BOARD_LITESTREAM: '1',
        BOARD_DISK_LOW_MB: '100',
        HOME: '/root',
        PATH: '/usr/bin',
        KEYBOARD: 'de',
        BOARD_WORKER_INDEX: '1',
      },
      ['BOARD_WORKER_INDEX'],
    ),
    undefined,
  );
  assert.match(
    refusal({ BOARD_WORKER_INDEX: '1' }) ?? '',
    /^BOARD_WORKER_INDEX is not a setting/,
    'known only where named',
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

test('BOARD_FEDERATION on with an http BOARD_ORIGIN warns in one line; https or federation off does not', () => {
  for (const mode of ['allowlist', 'open']) {
    const lines = warnings({ BOARD_FEDERATION: mode, BOARD_ORIGIN: 'http://board.example.org' });
    assert.equal(lines.length, 1, mode);
    assert.match(lines[0]!, new RegExp(`^BOARD_FEDERATION=${mode} with BOARD_ORIGIN http://board\\.example\\.org: `));
    assert.deepEqual(warnings({ BOARD_FEDERATION: mode, BOARD_ORIGIN: 'https://board.example.org' }), [], mode);
  }
  assert.deepEqual(warnings({ BOARD_FEDERATION: 'off', BOARD_ORIGIN: 'http://board.example.org' }), []);
});

test('the server refuses to start on a variable that is no setting: one line, exit 1', {
  timeout: hangBoundMs,
}, async () => {
  const started = await startServerProcess(emptyFolder('board-warn-'), { BOARD_REGISTRATON: 'invite' }).then(
    async (server) => {
      // It must not start; if it does, stop it before failing.
      server.process.kill('SIGTERM');
      await server.exited;
      return server.output();
    },
    (err: Error) => err,
  );
  assert.ok(started instanceof Error, `the server started:\n${started}`);
  assert.equal(
    started.message,
    'the server exited (1) before listening:\nboard: BOARD_REGISTRATON is not a setting; did you mean BOARD_REGISTRATION?',
  );
});

test('the server prints a warning as one line at start, and starts', { timeout: hangBoundMs }, async () => {
  const server = await startServerProcess(emptyFolder('board-warn-'));
  try {
    // child-server sets BOARD_TRUST_PROXY=1 and leaves BOARD_ORIGIN at its localhost default.
    assert.ok(
      server
        .output()
        .split('\n')
        .some((l) => l.startsWith('board: warning: BOARD_TRUST_PROXY=1 says')),
      server.output(),
    );
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200);
  } finally {
    server.process.kill('SIGTERM');
    await server.exited;
  }
});
