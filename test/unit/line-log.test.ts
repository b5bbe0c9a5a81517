import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createLineLog } from '../../lib/log.ts';

/**
 * lib/log.ts: the server's lines are collected and written once per event-loop turn, in writes of
 * at most PIPE_BUF (4096) bytes that end at a line's end, so that the lines of several workers
 * sharing one stdout never cut into each other.
 */

function capture() {
  const writes: string[] = [];
  const log = createLineLog({
    write: (chunk: string | Uint8Array) => writes.push(String(chunk)) > 0,
  } as unknown as NodeJS.WritableStream);
  return { log, writes };
}

test('the lines of one turn are written after it, in order, in one write', async () => {
  const { log, writes } = capture();
  log('GET /api/entry/feed/0 200 0.1ms');
  log('POST /api/entry/create 201 3.4ms');
  assert.deepEqual(writes, [], 'nothing is written on the request path');
  await nextTurn();
  assert.deepEqual(writes, ['GET /api/entry/feed/0 200 0.1ms\nPOST /api/entry/create 201 3.4ms\n']);
  log('GET /api/health 200 0.2ms');
  await nextTurn();
  assert.deepEqual(writes.slice(1), ['GET /api/health 200 0.2ms\n'], 'the next turn writes its own lines');
});

test('writes stay at or under 4096 bytes and end at a line end', async () => {
  const { log, writes } = capture();
  const lines = Array.from({ length: 300 }, (_, i) => `GET /api/entry/${1000 + i}/thread 200 ${i % 10}.${i % 7}ms`);
  for (const line of lines) log(line);
  await nextTurn();
  assert.ok(writes.length > 1, `${writes.length} write(s) for ${lines.join('\n').length} characters`);
  for (const chunk of writes) {
    assert.ok(Buffer.byteLength(chunk) <= 4096, `a write of ${Buffer.byteLength(chunk)} bytes`);
    assert.ok(chunk.endsWith('\n'));
  }
  assert.deepEqual(writes.join('').split('\n').slice(0, -1), lines, 'every line once, whole, in order');
});

test('a line longer than 4096 characters is written whole, on its own', async () => {
  const { log, writes } = capture();
  const long = `error: ${'x'.repeat(5000)}`;
  log('GET /a 200 0.1ms');
  log(long);
  log('GET /b 200 0.1ms');
  await nextTurn();
  assert.deepEqual(writes, ['GET /a 200 0.1ms\n', `${long}\n`, 'GET /b 200 0.1ms\n']);
});

test('a thousand lines in one turn are written at once, without waiting for the turn', () => {
  const { log, writes } = capture();
  for (let i = 0; i < 999; i++) log(`GET /api/entry/feed/${i % 100} 200 0.1ms`);
  assert.deepEqual(writes, []);
  log('GET /api/entry/feed/0 200 0.1ms');
  assert.equal(writes.join('').split('\n').length - 1, 1000, 'the 1000th line writes them all');
});

test('flush writes what is pending at once (the last lines before the process exits)', async () => {
  const { log, writes } = capture();
  log('board: SIGTERM, finishing requests in flight');
  log.flush();
  assert.deepEqual(writes, ['board: SIGTERM, finishing requests in flight\n']);
  await nextTurn();
  assert.equal(writes.length, 1, 'the turn has nothing left to write');
});
