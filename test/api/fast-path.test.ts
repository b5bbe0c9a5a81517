import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createDataVersion } from '../../lib/db/data-version.ts';
import { eventually, limitsOff, post, rawRequest, sendRaw, startBoard, useBoard, visitor } from '../helpers.ts';

/**
 * Cached feed pages and threads leave through lib/http/fast-path.ts: the answer must be the one
 * the pipeline gives (status, body, every header), the log and the metrics must still see it,
 * and anything it does not cover must still reach the pipeline.
 */

/** What the log says about cached answers to `path` in `lines`: their count, and any other line for the path. */
function cachedLines(lines: string[], path: string): { counted: number; other: string[] } {
  let counted = 0;
  const other: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(`GET ${path} `)) continue;
    const cached = /^GET \S+ 200 cached x([1-9]\d*)$/.exec(line);
    if (cached) counted += Number(cached[1]);
    else other.push(line);
  }
  return { counted, other };
}

describe('the fast path for cached pages', () => {
  const t = useBoard({
    env: { ...limitsOff, BOARD_METRICS_PORT: '0' },
    members: ['Anna'],
    start: { timeouts: { hitLinesMs: 50 } },
  });
  const compared = ['content-type', 'content-length', 'cache-control', 'x-content-type-options', 'referrer-policy'];

  test('a cached feed page and thread answer exactly as the pipeline built them, logged and counted', async () => {
    const root = await post(t.members.Anna, 'Hallo');
    for (const path of ['/api/entry/feed/0', `/api/entry/${root}/thread`]) {
      const built = await rawRequest(t.board.url, 'GET', path, { host: 'board' }); // a miss: the pipeline builds it
      assert.match(
        t.board.logs.at(-1)!,
        new RegExp(`^GET ${path.replace(/\//g, '\\/')} 200 \\d+\\.\\dms$`),
        'a built answer has its own line',
      );
      const logged = t.board.logs.length;
      const hits =
        t.board.app.services.db.responses.tally.feedHits + t.board.app.services.db.responses.tally.threadHits;
      for (let i = 0; i < 3; i++) {
        const cached = await rawRequest(t.board.url, 'GET', path, { host: 'board' });
        assert.equal(cached.status, 200);
        assert.equal(cached.text, built.text);
        for (const name of compared) assert.equal(cached.headers[name], built.headers[name], `${path}: ${name}`);
      }
      assert.equal(
        t.board.app.services.db.responses.tally.feedHits + t.board.app.services.db.responses.tally.threadHits,
        hits + 3,
        `${path} came from the cache`,
      );
      // Cached answers are counted into lines per target (lib/http/hit-lines.ts; here every 50 ms).
      await eventually(
        `three cached answers to ${path} in the log`,
        () => cachedLines(t.board.logs.slice(logged), path).counted === 3,
      );
      assert.deepEqual(cachedLines(t.board.logs.slice(logged), path).other, [], 'no line of their own');
    }
    const metrics = await (await fetch(`${t.board.metricsUrl}/metrics`)).text();
    assert.match(
      metrics,
      /board_http_request_duration_seconds_count\{route="\/api\/entry\/feed\/:page",method="GET",status="2xx"\} [2-9]/,
    );
  });

  test('what it does not cover reaches the pipeline: a query string, HEAD, a page out of range, no Host, an unknown thread', async () => {
    await visitor(t.board).get('/api/entry/feed/0');
    assert.equal((await visitor(t.board).get('/api/entry/feed/0?x=1')).status, 200);
    const head = await rawRequest(t.board.url, 'HEAD', '/api/entry/feed/0', { host: 'board' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal((await visitor(t.board).get('/api/entry/feed/101')).body.error.code, 'input.invalid');
    assert.equal((await visitor(t.board).get('/api/entry/99999/thread')).status, 404);
    const noHost = await sendRaw(
      Number(new URL(t.board.url).port),
      Buffer.from('GET /api/entry/feed/0 HTTP/1.1\r\nConnection: close\r\n\r\n'),
    );
    assert.equal(noHost.status, 400, 'HTTP/1.1 without Host stays a bad request');
  });
});

test('a graceful stop writes the counts of cached answers not yet logged', async () => {
  const board = await startBoard(limitsOff); // counts become lines once a second: the stop comes first
  let closed = false;
  try {
    await visitor(board).get('/api/entry/feed/0'); // built
    for (let i = 0; i < 2; i++) assert.equal((await visitor(board).get('/api/entry/feed/0')).status, 200);
    assert.equal(board.app.services.db.responses.tally.feedHits, 2);
    assert.equal(cachedLines(board.logs, '/api/entry/feed/0').counted, 0, 'not yet written');
    await board.close();
    closed = true;
    assert.equal(cachedLines(board.logs, '/api/entry/feed/0').counted, 2);
  } finally {
    if (!closed) await board.close();
  }
});

test("data_version through the WAL-index header: another connection's commit moves it, our own does not", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'board-dv-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'board.db');
  const ours = new Database(path);
  ours.pragma('journal_mode = WAL');
  ours.exec('CREATE TABLE t (x)');
  const other = new Database(path);
  const version = createDataVersion(ours, path);
  try {
    const first = version.read();
    assert.equal(version.read(), first, 'nothing committed');
    ours.exec('INSERT INTO t VALUES (1)');
    assert.equal(version.read(), first, 'our own commit');
    other.exec('INSERT INTO t VALUES (2)');
    const second = version.read();
    assert.notEqual(second, first, 'another connection committed');
    assert.equal(version.read(), second);
    other.pragma('wal_checkpoint(TRUNCATE)');
    other.exec('INSERT INTO t VALUES (3)');
    assert.notEqual(version.read(), second, 'after the WAL started over');
  } finally {
    version.close();
    other.close();
    ours.close();
  }
  const memory = new Database(':memory:');
  const inMemory = createDataVersion(memory, ':memory:');
  assert.equal(typeof inMemory.read(), 'number');
  memory.close();
});
