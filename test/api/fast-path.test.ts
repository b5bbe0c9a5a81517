import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createDataVersion } from '../../lib/db/data-version.ts';
import { routeKey } from '../../lib/api/openapi-document.ts';
import { routes } from '../../lib/routes.ts';
import {
  eventually,
  limitsOff,
  post,
  rawRequest,
  sendRaw,
  startBoard,
  useBoard,
  visitor,
  emptyFolder,
} from '../helpers.ts';
import { responsesOf } from '../../lib/http/response-cache.ts';

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
  /** Every row of the route table that the fast path answers from the cache (lib/routes.ts `cache`). */
  const cachedRows = routes.filter((route) => route.cache);
  /** Answers served from the cache so far, of every kind. */
  const hitsSoFar = () =>
    Object.entries(responsesOf(t.board.app.services.db).tally)
      .filter(([name]) => name.endsWith('Hits'))
      .reduce((sum, [, count]) => sum + count, 0);
  /** The headers an answer carries, but Date: the clock may tick between two answers. */
  const withoutDate = ({ date: _, ...headers }: Record<string, unknown>) => headers;

  test('every cached row answers exactly as the pipeline built it (status, body, every header), logged and counted', async () => {
    const root = await post(t.members.Anna, 'Hallo');
    const example: Record<string, string> = { page: '0', pid: String(root), username: 'Anna' };
    // A row whose page exists only with a query (the search) is asked with this one.
    const exampleQuery: Record<string, string> = { '/suche': '?q=Hallo' };
    assert.ok(cachedRows.length >= 2, 'the feed and threads are cached rows');
    for (const route of cachedRows) {
      // The log names the path without the query, as it does every request.
      const logged = route.path.replace(
        /:(\w+)/g,
        (_, name: string) => example[name] ?? assert.fail(`${routeKey(route)}: give :${name} an example value here`),
      );
      const path = logged + (exampleQuery[route.path] ?? '');
      const built = await rawRequest(t.board.url, 'GET', path, { host: 'board' }); // a miss: the pipeline builds it
      assert.equal(built.status, 200, path);
      assert.match(
        t.board.logs.at(-1)!,
        new RegExp(`^GET ${logged.replace(/\//g, '\\/')} 200 \\d+\\.\\dms$`),
        'a built answer has its own line',
      );
      const lines = t.board.logs.length;
      const hits = hitsSoFar();
      for (let i = 0; i < 3; i++) {
        const cached = await rawRequest(t.board.url, 'GET', path, { host: 'board' });
        assert.equal(cached.status, 200);
        assert.equal(cached.text, built.text);
        assert.deepEqual(withoutDate(cached.headers), withoutDate(built.headers), `${path}: every header`);
      }
      assert.equal(hitsSoFar(), hits + 3, `${path} came from the cache`);
      // Cached answers are counted into lines per target (lib/http/hit-lines.ts; here every 50 ms).
      await eventually(
        `three cached answers to ${path} in the log`,
        () => cachedLines(t.board.logs.slice(lines), logged).counted === 3,
      );
      assert.deepEqual(cachedLines(t.board.logs.slice(lines), logged).other, [], 'no line of their own');
    }
    const metrics = await (await fetch(`${t.board.metricsUrl}/metrics`)).text();
    for (const route of cachedRows) {
      assert.match(
        metrics,
        new RegExp(
          `board_http_request_duration_seconds_count\\{route="${route.path.replace(/\//g, '\\/')}",method="GET",status="2xx"\\} [2-9]`,
        ),
      );
    }
  });

  test('what it does not cover reaches the pipeline: a query string, HEAD, a page out of range, no Host, an unknown thread, another spelling', async () => {
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
    // Another spelling of a cached page is the pipeline's: it answers the same page, on a line of its own.
    for (const path of ['/api/entry/feed/00', '/api/entry/feed/%30']) {
      const answer = await rawRequest(t.board.url, 'GET', path, { host: 'board' });
      assert.equal(answer.status, 200, path);
      assert.match(t.board.logs.at(-1)!, new RegExp(`^GET ${path.replace(/\//g, '\\/')} 200 \\d+\\.\\dms$`));
    }
  });
});

test('a graceful stop writes the counts of cached answers not yet logged', async () => {
  const board = await startBoard(limitsOff); // counts become lines once a second: the stop comes first
  let closed = false;
  try {
    await visitor(board).get('/api/entry/feed/0'); // built
    for (let i = 0; i < 2; i++) assert.equal((await visitor(board).get('/api/entry/feed/0')).status, 200);
    assert.equal(responsesOf(board.app.services.db).tally.feedHits, 2);
    assert.equal(cachedLines(board.logs, '/api/entry/feed/0').counted, 0, 'not yet written');
    await board.close();
    closed = true;
    assert.equal(cachedLines(board.logs, '/api/entry/feed/0').counted, 2);
  } finally {
    if (!closed) await board.close();
  }
});

test("data_version through the WAL-index header: another connection's commit moves it, our own does not", (t) => {
  const dir = emptyFolder('board-dv-');
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
