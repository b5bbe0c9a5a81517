import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { limitsOff, startProxiedBoard, type TestBoard } from '../helpers.ts';
import { recordSummary, scaled, soak } from './soak.ts';

/**
 * Slow and abusive clients. `make test` runs the board with 1 s / 2 s timeouts; `make soak`
 * with the production defaults (headers 10 s, whole request 60 s). Nothing here asserts how
 * fast anything is: only that the server closes these connections by itself (before a
 * generous cap, so the test ends), keeps answering everyone else, and stays within memory.
 */
const timeouts = soak ? undefined : { headersMs: 1000, requestMs: 2000 };
const headersMs = timeouts?.headersMs ?? 10_000;
const requestMs = timeouts?.requestMs ?? 60_000;
/** How long the server may take to close a connection its timeouts should end (a bound, not a timing claim). */
const capMs = (limitMs: number) => limitMs * 3 + 15_000;
const idleCount = scaled(300, 1000);
const slowlorisCount = scaled(5, 50);

let board: TestBoard;
let port: number;
let serverErrors = 0;

before(async () => {
  board = await startProxiedBoard(limitsOff, { timeouts });
  port = (board.app.server.address() as AddressInfo).port;
  await board.client({ ip: '203.0.113.5' }).signUp('Patient Writer');
});
after(async () => {
  recordSummary({ serverErrors });
  await board.close();
});

interface Held {
  /** Resolves when the server has closed the connection (with what it answered), or at the cap with `open: true`. */
  closed: Promise<{ open: boolean; answer: string }>;
  socket: Socket;
}

/** Opens a connection and lets `behave` dribble on it; watches for the server to close it. */
function hold(cap: number, behave: (socket: Socket) => () => void = () => () => {}): Promise<Held> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    let stop = () => {};
    const closed = new Promise<{ open: boolean; answer: string }>((done) => {
      const timer = setTimeout(() => {
        stop();
        socket.destroy();
        done({ open: true, answer });
      }, cap);
      const end = () => {
        clearTimeout(timer);
        stop();
        socket.destroy();
        done({ open: false, answer });
      };
      socket.on('end', end);
      socket.on('close', end);
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('error', () => {});
    socket.once('connect', () => {
      stop = behave(socket);
      resolve({ closed, socket });
    });
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until stopped (or the text runs out). */
function dribble(text: string, everyMs: number) {
  return (socket: Socket) => {
    let at = 0;
    const timer = setInterval(() => {
      if (at >= text.length || socket.destroyed) return clearInterval(timer);
      socket.write(text[at++]!);
    }, everyMs);
    return () => clearInterval(timer);
  };
}

/** A normal visitor's requests, while the abuse goes on: they must all succeed. */
async function normalVisitorMeanwhile(whileRunning: Promise<unknown>): Promise<number> {
  let done = false;
  void whileRunning.finally(() => {
    done = true;
  });
  const client = board.client({ ip: '203.0.113.6' });
  let answered = 0;
  do {
    for (const path of ['/api/health', '/api/entry/feed/0', '/api/u/Patient%20Writer/info']) {
      const answer = await client.get(path);
      if (answer.status >= 500) serverErrors++;
      assert.equal(answer.status, 200, `${path} while slow clients hold connections: ${answer.text}`);
      answered++;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  } while (!done);
  return answered;
}

function rssMiB(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

/** The server's open connections once the closes have gone through (polled for up to 5 s, until at most `expected`). */
async function openConnections(expected: number): Promise<number> {
  let count = Infinity;
  for (let i = 0; i < 50 && count > expected; i++) {
    count = await new Promise<number>((resolve) => board.app.server.getConnections((_, n) => resolve(n)));
    if (count > expected) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return count;
}

describe(`slow and abusive clients (timeouts: headers ${headersMs} ms, request ${requestMs} ms)`, () => {
  test(`slowloris: ${slowlorisCount} connections dribbling header bytes are closed by the headers timeout while others are served`, {
    timeout: capMs(headersMs) + 30_000,
  }, async () => {
    const endless = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: '.padEnd(100_000, 'z')}`;
    const held = await Promise.all(
      Array.from({ length: slowlorisCount }, () => hold(capMs(headersMs), dribble(endless, soak ? 500 : 100))),
    );
    const results = Promise.all(held.map((h) => h.closed));
    const served = await normalVisitorMeanwhile(results);
    for (const result of await results) {
      assert.equal(result.open, false, 'the server closed the slowloris connection');
      assert.match(result.answer, /^(HTTP\/1\.1 408 |$)/, 'a 408 or a plain close');
    }
    assert.ok(served > 0);
  });

  test('a body sent at 1 byte a second is cut off by the request timeout, in the JSON shape', {
    timeout: capMs(requestMs) + 30_000,
  }, async () => {
    const head =
      'POST /api/entry/1/report HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.0.113.7\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n';
    const held = await hold(capMs(requestMs), (socket) => {
      socket.write(head);
      return dribble(`reason=${'s'.repeat(9993)}`, 1000)(socket);
    });
    const served = await normalVisitorMeanwhile(held.closed);
    const result = await held.closed;
    assert.equal(result.open, false, 'the server closed the slow upload');
    if (result.answer) {
      assert.match(result.answer, /^HTTP\/1\.1 (408|400) /, result.answer);
      assert.match(result.answer, /"error":\{"code":"input\.invalid"/);
    }
    assert.ok(served > 0);
    assert.equal(
      board.logs.filter((line) => / 5\d\d [\d.]+ms$/.test(line) || line.startsWith('error ')).length,
      0,
      board.logs.join('\n'),
    );
  });

  test(`${idleCount} idle connections: others are served, memory stays bounded, and the headers timeout closes them all`, {
    timeout: capMs(headersMs) + 60_000,
  }, async () => {
    const before = rssMiB();
    let peak = before;
    const held: Held[] = [];
    for (let i = 0; i < idleCount; i += 100) {
      held.push(
        ...(await Promise.all(Array.from({ length: Math.min(100, idleCount - i) }, () => hold(capMs(headersMs))))),
      );
      peak = Math.max(peak, rssMiB());
    }
    const results = Promise.all(held.map((h) => h.closed));
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB());
    }, 100);
    const served = await normalVisitorMeanwhile(results);
    clearInterval(sampler);
    const closed = await results;
    assert.equal(closed.filter((r) => r.open).length, 0, 'every idle connection was closed by the server');
    assert.ok(served > 0);
    // Generous: a connection costs a few KiB on each side; this catches per-connection buffers or leaks.
    assert.ok(peak - before < 256, `RSS grew by ${(peak - before).toFixed(0)} MiB with ${idleCount} idle connections`);
    const left = await openConnections(4);
    assert.ok(left <= 4, `${left} connections open; only the normal visitor's keep-alive connections may be`);
    console.log(
      `slow clients: ${idleCount} idle connections, RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB, ${served} normal requests served meanwhile`,
    );
  });
});
