import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { password, type Client, eventually } from '../helpers.ts';
import { page, previewEnv, startFakeSite, type FakeSite } from '../helpers/previews.ts';
import { runAdminIn } from '../helpers/child-server.ts';
import { startCluster, type ClusterBoard } from '../helpers/cluster-board.ts';

/**
 * Two workers on one database: link-preview jobs are fetched once (the primary's queue and a
 * board-admin run at the same time, leases honoured), and a write through one worker shows at
 * once in the other's cached pages while it serves many readers.
 */
describe('two workers, one database: the preview queue and the response cache', () => {
  let site: FakeSite;
  let board: ClusterBoard;
  let writer: Client;
  let writerOnOne: Client;
  before(async () => {
    site = await startFakeSite();
    // Each page answers after 300 ms: long enough for a second fetcher to try the same job.
    for (let i = 0; i < 10; i++) {
      site.route(
        `/p${i}`,
        (_req, res) =>
          void setTimeout(
            () => res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<title>Seite ${i}</title>`)),
            300,
          ),
      );
    }
    board = await startCluster(previewEnv([site.port]));
    writer = await board.clientOn('2', '192.0.2.10');
    assert.equal(
      (await writer.post('/api/auth/newuser', { user: 'Schreiberin', pass1: password, pass2: password })).status,
      201,
    );
    assert.equal(
      (await writer.post('/api/auth/login', { user: 'Schreiberin', pass: password, timeout: 31_536_000 })).status,
      200,
    );
    writerOnOne = await board.clientOn('1', '192.0.2.11');
    writerOnOne.cookie = writer.cookie;
  });
  after(async () => {
    // The site closes also when the cluster never started: an open server would hold the test process open.
    await board?.close();
    await site?.close();
  });

  test('every link is fetched once, whichever worker queued it, while board-admin previews works the same queue', async () => {
    const posted: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) {
      posted.push((i % 2 ? writer : writerOnOne).post('/api/entry/create', { content: `Lies ${site.url(`/p${i}`)}` }));
      if (i < 3)
        posted.push(
          (i % 2 ? writerOnOne : writer).post('/api/entry/create', { content: `Nochmal ${site.url(`/p${i}`)}` }),
        );
    }
    for (const answer of await Promise.all(posted)) assert.equal((answer as { status: number }).status, 201);
    const env = previewEnv([site.port]);
    const admin = await runAdminIn(board.dataDir, ['previews'], env);
    assert.equal(admin.code, 0, admin.stderr);
    const db = new Database(join(board.dataDir, 'board.db'), { readonly: true });
    try {
      await eventually(
        'ten previews',
        () => (db.prepare("SELECT count(*) AS n FROM previews WHERE title <> ''").get() as { n: number }).n === 10,
        20_000,
      );
    } finally {
      db.close();
    }
    const hits = new Map<string, number>();
    for (const path of site.requests) hits.set(path, (hits.get(path) ?? 0) + 1);
    assert.deepEqual([...hits.entries()].sort(), Array.from({ length: 10 }, (_, i) => [`/p${i}`, 1]).sort());
  });

  test('under load: no reader of worker 1 sees a thread or feed page older than a write worker 2 acknowledged', async () => {
    // A connection of its own on worker 2: the one of before() may have idled past its keep-alive
    // during the test above, and a new connection lands on either worker.
    const writer = await board.clientOn('2', '192.0.2.12');
    writer.cookie = writerOnOne.cookie;
    const root = (await writer.post('/api/entry/create', { content: 'Der Faden für die Leser' })).body.pid as number;
    const readers = [];
    for (let i = 0; i < 4; i++) readers.push(await board.clientOn('1', `192.0.2.${30 + i}`));
    const acknowledged: number[] = [];
    let writing = true;
    let reads = 0;
    const stale: string[] = [];
    // Per reader: how many acknowledged writes its last finished round had to show.
    const checked = readers.map(() => 0);
    const read = async (reader: Client, k: number) => {
      while (writing) {
        const known = acknowledged.length;
        const mustShow = acknowledged.slice();
        const [thread, feed] = await Promise.all([
          reader.get(`/api/entry/${root}/thread`),
          reader.get('/api/entry/feed/0'),
        ]);
        reads++;
        const shown = new Set((thread.body.replies as { pid: number }[]).map((r) => r.pid));
        const missing = mustShow.filter((pid) => !shown.has(pid));
        if (missing.length) stale.push(`thread without ${missing.join(',')}`);
        const inFeed = (feed.body as { pid: number; reply_count: number }[]).find((e) => e.pid === root);
        if (!inFeed || inFeed.reply_count < known)
          stale.push(`feed: reply_count ${inFeed?.reply_count} after ${known} replies`);
        checked[k] = known;
      }
    };
    // A reader that stopped (done, or failed) holds no write up; Promise.all(loops) reports a failure.
    const loops = readers.map((reader, k) =>
      read(reader, k).finally(() => {
        checked[k] = Infinity;
      }),
    );
    for (let i = 0; i < 60; i++) {
      const answer = await writer.post('/api/entry/create', { content: `Antwort ${i}`, reply_to: root });
      assert.equal(answer.status, 201);
      acknowledged.push(answer.body.pid as number);
      // Paced by the readers, not by a pause: the next write only once every reader has read a
      // round that had to show this one, so each write is checked by all four on any machine.
      while (checked.some((n) => n < acknowledged.length)) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    writing = false;
    await Promise.all(loops);
    assert.deepEqual(stale, []);
    assert.ok(reads >= 60 * readers.length, `every reader read after every acknowledged write (${reads} rounds)`);
    for (const reader of readers) assert.equal(await board.workerOf(reader), '1', 'the readers stayed on worker 1');
    assert.equal(await board.workerOf(writer), '2', 'the writer stayed on worker 2');
    const hits = (await board.scrape()).get('board_response_cache_total{answer="thread",result="hit",worker="1"}') ?? 0;
    assert.ok(hits > 0, 'worker 1 answered from its cache between the writes');
  });
});
