import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emptyFolder, runAdminInProcess } from '../helpers.ts';
import { childEnv } from '../helpers/child-env.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

const boardAdmin = fileURLToPath(new URL('../../bin/board-admin', import.meta.url));

/** What the fake list server answers next: status, content type and body. */
let answer: { status: number; type: string; body: string | Buffer } = { status: 200, type: 'text/plain', body: '' };
let server: Server;
let base = '';
let dataDir = '';

before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(answer.status, { 'content-type': answer.type });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = emptyFolder('board-tor-refresh-');
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the real CLI as a sysadmin's cron job would: the first test; the rest run it in this process (runAdminHere). */
function runAdmin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      boardAdmin,
      args,
      { env: childEnv({ BOARD_DATA: dataDir }), timeout: hangBoundMs },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

/** The same command through bin/board-admin's runCli in this process, with only BOARD_DATA set (no BOARD_TOR_EXITS). */
const runAdminHere = (...args: string[]) => runAdminInProcess(args, { BOARD_DATA: dataDir });

const exitsFile = () => join(dataDir, 'tor-exits.txt');

test('tor-refresh writes the downloaded list with a header and leaves no temporary file', {
  timeout: hangBoundMs,
}, async () => {
  answer = { status: 200, type: 'text/plain', body: '185.220.101.1\n185.220.101.2\r\n\n2001:db8::7\n185.220.101.1\n' };
  const run = await runAdmin('tor-refresh', `${base}/list`);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), `wrote 3 addresses to ${exitsFile()}`);
  const lines = readFileSync(exitsFile(), 'utf8').split('\n');
  assert.match(lines[0]!, new RegExp(`^# Tor exit addresses from ${base}/list, fetched \\d{4}-\\d\\d-\\d\\dT`));
  assert.deepEqual(lines.slice(1), ['185.220.101.1', '185.220.101.2', '2001:db8::7', '']);
  assert.deepEqual(readdirSync(dataDir), ['tor-exits.txt']);
});

test('a second refresh replaces the old list', { timeout: hangBoundMs }, async () => {
  writeFileSync(exitsFile(), '# old\n10.0.0.1\n');
  answer = { status: 200, type: 'text/plain', body: '# from the source\n10.0.0.2\n' };
  const run = await runAdminHere('tor-refresh', `${base}/list`);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(readFileSync(exitsFile(), 'utf8').split('\n').slice(1), ['10.0.0.2', '']);
  assert.deepEqual(readdirSync(dataDir), ['tor-exits.txt']);
});

const refused: [string, typeof answer][] = [
  ['a 500 answer', { status: 500, type: 'text/plain', body: '1.2.3.4\n' }],
  ['an HTML page', { status: 200, type: 'text/html', body: '<!doctype html><html><body>Tor check</body></html>\n' }],
  ['a list with one bad line', { status: 200, type: 'text/plain', body: '1.2.3.4\n1.2.3.\n' }],
  ['an empty list', { status: 200, type: 'text/plain', body: '# no exits today\n\n' }],
  ['a list over 5 MiB', { status: 200, type: 'text/plain', body: Buffer.alloc(6 * 1024 * 1024, '1.2.3.4\n') }],
];
for (const [what, bad] of refused) {
  test(`tor-refresh refuses ${what}: exit 1 and the old file unchanged`, { timeout: hangBoundMs }, async () => {
    const old = '# old\n10.0.0.1\n';
    writeFileSync(exitsFile(), old);
    answer = bad;
    const run = await runAdminHere('tor-refresh', `${base}/list`);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^board-admin: tor-refresh: /);
    assert.equal(readFileSync(exitsFile(), 'utf8'), old);
    assert.deepEqual(readdirSync(dataDir), ['tor-exits.txt']);
  });
}

test('tor-refresh with an unreachable server fails with exit 1', { timeout: hangBoundMs }, async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const run = await runAdminHere('tor-refresh', `http://127.0.0.1:${port}/list`);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /cannot fetch/);
  assert.deepEqual(readdirSync(dataDir), []);
});

test('tor-refresh with two arguments is a usage error', { timeout: hangBoundMs }, async () => {
  const run = await runAdminHere('tor-refresh', `${base}/a`, `${base}/b`);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /tor-refresh \[URL\]/);
});
