import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emptyFolder } from '../helpers.ts';
import { childEnv } from '../helpers/child-env.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/** The real server process started as an operator would, with bad settings: each must end in one line, exit 1. */
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A server still running this long after its start has hung rather than given up: killed and
 * reported. Why the hang bound and not a few seconds: a loaded machine starts a server slowly, and
 * the test's own timeout (hangBoundMs) must not end it first.
 */
const hungAfterMs = hangBoundMs - 15_000;

/** Starts server.ts and waits for it to exit; a server still running after hungAfterMs is killed and reported. */
function startFailing(
  env: Record<string, string>,
  options: { prefix?: readonly string[] } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  const argv = [...(options.prefix ?? []), process.execPath, '--import', 'tsx', 'server.ts'];
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: projectRoot,
    env: childEnv({ HOST: '127.0.0.1', BOARD_SCRYPT_LOGN: '14', BOARD_PREVIEW: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let killed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, hungAfterMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, killed });
    }),
  );
}

function assertOneLine(run: { code: number | null; stderr: string; killed: boolean }, pattern: RegExp): void {
  assert.equal(run.killed, false, 'the server must give up on its own, not hang');
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stderr.split('\n').filter(Boolean).length, 1, `one line: ${run.stderr}`);
  assert.match(run.stderr, pattern);
}

test('a port already in use ends in one line naming PORT, exit 1, and frees the data folder again', {
  timeout: hangBoundMs,
}, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const data = emptyFolder();
    const run = await startFailing({ BOARD_DATA: data, PORT: String((taken.address() as AddressInfo).port) });
    assertOneLine(run, /^board: PORT: \d+ on 127\.0\.0\.1 is already in use/);
    assert.ok(!readdirSync(data).includes('server.pid'), 'the pid file is released');
  } finally {
    taken.close();
  }
});

test('a BOARD_METRICS_PORT already in use ends in one line naming it, exit 1, and frees the data folder again', {
  timeout: hangBoundMs,
}, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const data = emptyFolder();
    const run = await startFailing({
      BOARD_DATA: data,
      PORT: '0',
      BOARD_METRICS_PORT: String((taken.address() as AddressInfo).port),
    });
    assertOneLine(
      run,
      /^board: BOARD_METRICS_PORT: \d+ on 127\.0\.0\.1 is already in use; choose another BOARD_METRICS_PORT/,
    );
    assert.ok(!readdirSync(data).includes('server.pid'), 'the pid file is released');
  } finally {
    taken.close();
  }
});

test('a BOARD_METRICS_HOST that is not loopback ends in one line, exit 1', { timeout: hangBoundMs }, async () => {
  const run = await startFailing({
    BOARD_DATA: emptyFolder(),
    PORT: '0',
    BOARD_METRICS_PORT: '0',
    BOARD_METRICS_HOST: '0.0.0.0',
  });
  assertOneLine(
    run,
    /^board: BOARD_METRICS_HOST: "0\.0\.0\.0" is not a loopback address; the metrics listen on 127\.0\.0\.1 or ::1 only$/m,
  );
});

test('a HOST that does not resolve ends in one line naming HOST, exit 1', { timeout: hangBoundMs }, async () => {
  const run = await startFailing({ BOARD_DATA: emptyFolder(), PORT: '0', HOST: 'no-such-host.invalid' });
  assertOneLine(run, /^board: HOST: "no-such-host\.invalid" does not resolve/);
});

test('BOARD_DATA=/proc/nope (mkdir answers ENOENT under an existing parent) exits within seconds with one line', {
  timeout: hangBoundMs,
  skip: process.platform !== 'linux' && 'needs Linux /proc',
}, async () => {
  const run = await startFailing({ BOARD_DATA: '/proc/nope', PORT: '0' });
  assertOneLine(run, /^board: BOARD_DATA: cannot use \/proc\/nope \(ENOENT/);
});

test('a board.db that is not a database ends in one line naming the file, exit 1', {
  timeout: hangBoundMs,
}, async () => {
  const data = emptyFolder();
  writeFileSync(join(data, 'board.db'), 'this is not a database, but a file of some length '.repeat(100));
  const run = await startFailing({ BOARD_DATA: data, PORT: '0' });
  assertOneLine(run, new RegExp(`^board: cannot use the database ${join(data, 'board.db')}: file is not a database`));
});

test('a bad switch value names the rule docs/OPERATIONS.md states', { timeout: hangBoundMs }, async () => {
  const run = await startFailing({ BOARD_DATA: emptyFolder(), PORT: '0', BOARD_TRUST_PROXY: 'yes' });
  assertOneLine(run, /^board: BOARD_TRUST_PROXY: "yes" must be 1 or 0 \(or true or false\)$/m);
});

// A privileged port needs a process without the right to bind it.
const unprivilegedStart = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8').trim());
  } catch {
    return 1024;
  }
})();
const isRoot = process.getuid?.() === 0;
/**
 * As root the server starts under setpriv (util-linux) without CAP_NET_BIND_SERVICE in its bounding
 * set: it keeps root's right to read the checkout, which a clone in a `mktemp -d` folder (mode 0700)
 * denies to any other user.
 */
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((place) => existsSync(place));
test('PORT=80 without the right to bind it ends in one line naming PORT, exit 1', {
  timeout: hangBoundMs,
  skip:
    (unprivilegedStart <= 80 && 'this machine lets anyone bind port 80') ||
    (isRoot && !setpriv && 'setpriv is not installed here (Debian package util-linux): root could bind port 80'),
}, async () => {
  const prefix = isRoot && setpriv ? [setpriv, '--bounding-set', '-net_bind_service'] : [];
  const run = await startFailing({ BOARD_DATA: emptyFolder(), PORT: '80' }, { prefix });
  assertOneLine(run, /^board: PORT: no permission to listen on 80/);
});
