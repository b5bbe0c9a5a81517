import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { heldFolder } from '../../lib/media/hold.ts';
import { eventually, oldBoard, password, type Client, emptyFolder } from '../helpers.ts';
import { searchIndexProblems } from '../helpers/consistency.ts';
import { startCluster, waitForLine, type ClusterBoard } from '../helpers/cluster-board.ts';

/** Entries older than the search index: enough that the backfill is still at work while the workers start. */
const oldEntries = 50_000;

/**
 * Two workers on a board that had entries before the search index: the primary alone indexes them
 * (one backfill, every entry once) and empties media/.held (housekeeping), and what worker 2
 * acknowledges shows at once in worker 1's cached search pages, Atom feeds and share pages
 * (lib/http/response-cache.ts: another process's commit drops them all).
 */
describe('two workers, one database: the search backfill, held media, search pages, Atom feeds and share pages', () => {
  let board: ClusterBoard;
  let writer: Client;
  let reader: Client;
  let leftBehind: string;
  before(async () => {
    const dataDir = emptyFolder('board-cluster-search-');
    oldBoard(
      dataDir,
      Array.from({ length: oldEntries }, (_, i) => (i === 99 ? '' : `Altbestand Nummer ${i}`)),
    );
    leftBehind = join(dataDir, 'media', heldFolder, 'e', 'left-by-a-killed-backup.jpg');
    mkdirSync(dirname(leftBehind), { recursive: true });
    writeFileSync(leftBehind, 'x');
    board = await startCluster({}, dataDir);
  });
  after(() => board.close());

  test('the search backfill runs once, in the primary: one start, one end, every old entry indexed once; its housekeeping empties media/.held', async () => {
    await waitForLine(board.child, /search: segments merged/, 120_000);
    const lines = (text: string) =>
      board.child
        .output()
        .split('\n')
        .filter((line) => line.includes(text));
    assert.deepEqual(lines('search: indexing '), [
      `search: indexing ${oldEntries.toLocaleString('en')} older entries in the background (written before the index existed)`,
    ]);
    assert.equal(lines('search: the index is complete').length, 1);
    assert.equal(lines('search: segments merged').length, 1);
    assert.match(lines('runs the background jobs')[0] ?? '', /housekeeping, accountRemoval, searchBackfill/);
    await eventually("media/.held emptied by the primary's housekeeping", () => !existsSync(leftBehind));
    const db = new Database(join(board.dataDir, 'board.db'), { readonly: true });
    try {
      const pids = (sql: string) => (db.prepare(sql).all() as { pid: number }[]).map((r) => r.pid);
      assert.deepEqual(
        pids('SELECT rowid AS pid FROM search ORDER BY rowid'),
        pids('SELECT pid FROM entries WHERE deleted = 0 ORDER BY pid'),
      );
      assert.deepEqual(searchIndexProblems(db), []);
    } finally {
      db.close();
    }
  });

  test('a search, an Atom feed and a share page in worker 1 show what worker 2 acknowledged, right after its 201', async () => {
    writer = await board.clientOn('2', '192.0.2.50');
    assert.equal(
      (await writer.post('/api/auth/newuser', { user: 'Quitte', pass1: password, pass2: password })).status,
      201,
    );
    assert.equal((await writer.post('/api/auth/login', { user: 'Quitte', pass: password })).status, 200);
    reader = await board.clientOn('1', '192.0.2.51');
    const found = async (q: string) => {
      const answer = await reader.get(`/api/search/0?q=${encodeURIComponent(q)}`);
      assert.equal(answer.status, 200, answer.text);
      return (answer.body as { pid: number }[]).map((e) => e.pid);
    };
    const acknowledged: number[] = [];
    for (let i = 0; i < 8; i++) {
      // Read first, so worker 1 holds each page cached under the state before the write.
      assert.deepEqual(await found('quittengelee'), acknowledged.slice().reverse());
      assert.equal((await reader.get('/feed.atom')).status, 200);
      assert.equal((await reader.get('/u/Quitte/feed.atom')).status, 200);
      const answer = await writer.post('/api/entry/create', { content: `Quittengelee Nummer ${i}` });
      assert.equal(answer.status, 201);
      const pid = answer.body.pid as number;
      acknowledged.push(pid);
      assert.deepEqual(await found('quittengelee'), acknowledged.slice().reverse(), `search after entry ${pid}`);
      assert.deepEqual(await found('altbestand 12345'), [12346], 'an old entry, found through the backfill');
      assert.match((await reader.get('/feed.atom')).text, new RegExp(`/e/${pid}<`), `/feed.atom after entry ${pid}`);
      assert.match(
        (await reader.get('/u/Quitte/feed.atom')).text,
        new RegExp(`/e/${pid}<`),
        `the author's feed after entry ${pid}`,
      );
    }
    const pid = acknowledged[0]!;
    assert.match((await reader.get(`/e/${pid}`)).text, /Quittengelee Nummer 0/);
    assert.equal((await writer.post(`/api/entry/${pid}/edit`, { content: 'Birnenkompott statt Gelee' })).status, 200);
    const shared = (await reader.get(`/e/${pid}`)).text;
    assert.match(shared, /Birnenkompott statt Gelee/, 'the share page shows the edit');
    assert.doesNotMatch(shared, /Quittengelee/);
    assert.deepEqual(await found('birnenkompott'), [pid]);
    assert.equal(await board.workerOf(reader), '1', 'the reader stayed on worker 1');
    assert.equal(await board.workerOf(writer), '2', 'the writer stayed on worker 2');
  });

  test("searches through both workers run on the machine's search slots, which the primary hands out: never more than two at once", async () => {
    const clients = await Promise.all(
      Array.from({ length: 6 }, (_, i) => board.clientOn(i % 2 ? '2' : '1', `192.0.2.${60 + i}`)),
    );
    const numbers = Array.from({ length: 24 }, (_, i) => 20_000 + 7 * i);
    const answers = await Promise.all(
      clients.map(async (client, c) => {
        const pids: number[][] = [];
        for (let i = c; i < numbers.length; i += clients.length) {
          // A search that waited past the line's 2 s bound (a loaded machine starting its threads) is
          // refused with 503 search.busy and Retry-After; a client tries again, as this one does, a few times.
          let answer = await client.get(`/api/search/0?q=altbestand%20${numbers[i]}`);
          for (let tries = 0; answer.status === 503 && tries < 5; tries++) {
            assert.equal((answer.body as { error: { code: string } }).error.code, 'search.busy', answer.text);
            await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after'))));
            answer = await client.get(`/api/search/0?q=altbestand%20${numbers[i]}`);
          }
          assert.equal(answer.status, 200, answer.text);
          pids[i] = (answer.body as { pid: number }[]).map((e) => e.pid);
        }
        return pids;
      }),
    );
    for (const [i, n] of numbers.entries())
      assert.deepEqual(answers[i % clients.length]![i], [n + 1], `altbestand ${n}`);
    const series = await board.scrape();
    const searchesOn = (worker: string) =>
      series.get(
        `board_http_request_duration_seconds_count{route="/api/search/:page",method="GET",status="2xx",worker="${worker}"}`,
      ) ?? 0;
    assert.ok(searchesOn('1') >= 12 && searchesOn('2') >= 12, 'both workers searched');
    const peak = series.get('board_machine_slots_peak{pool="search"}');
    assert.ok(
      peak !== undefined && peak >= 1 && peak <= 2,
      `the primary handed out the search slots, at most two at once (peak ${peak})`,
    );
    assert.equal(series.get('board_machine_slots_running{pool="search"}'), 0);
  });

  test('a deletion acknowledged by worker 2 moves the Atom feeds of worker 1 forward: If-Modified-Since gets 200 without the entry', async () => {
    // The searches above may leave both connections idle past the server's 5 s keep-alive on a busy
    // machine, and a new connection lands on either worker: pin them again.
    const { cookie } = writer;
    writer = await board.clientOn('2', '192.0.2.50');
    writer.cookie = cookie;
    reader = await board.clientOn('1', '192.0.2.51');
    const newest = (await writer.post('/api/entry/create', { content: 'Quittenbrot, gleich wieder weg' })).body
      .pid as number;
    const paths = ['/feed.atom', '/u/Quitte/feed.atom'];
    const seen = new Map<string, string>();
    for (const path of paths) {
      const answer = await reader.get(path);
      assert.match(answer.text, new RegExp(`/e/${newest}<`));
      seen.set(path, answer.headers.get('last-modified')!);
    }
    assert.equal((await writer.post(`/api/entry/${newest}/delete`)).status, 200);
    for (const path of paths) {
      // Last-Modified never names the second it is sent in, so the deletion is later than the reader's copy, however fast.
      const answer = await reader.get(path, { 'if-modified-since': seen.get(path)! });
      assert.equal(answer.status, 200, `${path}: worker 1 answered 304 for a copy that holds the deleted entry`);
      assert.doesNotMatch(answer.text, new RegExp(`/e/${newest}<`));
      assert.ok(
        Date.parse(answer.headers.get('last-modified')!) >= Date.parse(seen.get(path)!),
        `${path}: Last-Modified went back`,
      );
    }
    assert.equal(await board.workerOf(reader), '1');
    assert.equal(await board.workerOf(writer), '2');
  });
});
