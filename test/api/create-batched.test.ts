import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertError, day, entryCount, limitsOff, useBoard, visitor } from '../helpers.ts';

/** The create handler writes through db.txBatched (lib/db/write-batch.ts): creates of one turn share a commit. */
describe('creates sent at once', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Ben'] });

  test('20 creates at once all answer 201 with distinct pids, and all are in the feed', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? t.members.Anna : t.members.Ben).post('/api/entry/create', { content: `Gleichzeitig Nummer ${i}` }),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 201, answer.text);
    const pids = answers.map((a) => a.body.pid as number);
    assert.equal(new Set(pids).size, 20);
    const feed = (await visitor(t.board).get('/api/entry/feed/0')).body as { pid: number }[];
    const inFeed = new Set(feed.map((e) => e.pid));
    for (const pid of pids) assert.ok(inFeed.has(pid), `entry ${pid} in the feed`);
  });

  test("creates sent at once are each found by search as soon as they answered (index rows written before the batch's commit)", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? t.members.Anna : t.members.Ben).post('/api/entry/create', { content: `Quittenmus Sorte ${i}` }),
      ),
    );
    for (const answer of answers) assert.equal(answer.status, 201, answer.text);
    const found = (await visitor(t.board).get('/api/search/0?q=quittenmus')).body as { pid: number }[];
    assert.deepEqual(
      found.map((e) => e.pid).sort((a, b) => a - b),
      answers.map((a) => a.body.pid as number).sort((a, b) => a - b),
    );
    const check = t.board.app.services.db.raw.prepare("INSERT INTO search (search) VALUES ('integrity-check')");
    assert.doesNotThrow(() => check.run(), 'the FTS5 index agrees with itself');
  });

  test("a failed commit answers 500 internal and the entry is in neither the feed nor its parent's thread", async () => {
    const parent = (await t.members.Anna.post('/api/entry/create', { content: 'Eltern' })).body.pid as number;
    const feedBefore = (await visitor(t.board).get('/api/entry/feed/0')).text; // cached: the failure must not leave it stale
    const count = entryCount(t.board);
    const db = t.board.app.services.db;
    db.setFault((sql) => (sql === 'COMMIT' ? new Error('database or disk is full') : undefined));
    try {
      assertError(
        await t.members.Ben.post('/api/entry/create', { content: 'nie gespeichert', reply_to: parent }),
        500,
        'internal',
      );
    } finally {
      db.setFault(undefined);
    }
    assert.equal(entryCount(t.board), count);
    assert.deepEqual((await visitor(t.board).get('/api/search/0?q=gespeichert')).body, [], 'no index row either');
    const feed = await visitor(t.board).get('/api/entry/feed/0');
    assert.equal(feed.text, feedBefore);
    assert.ok(!feed.text.includes('nie gespeichert'));
    const thread = (await visitor(t.board).get(`/api/entry/${parent}/thread`)).text;
    assert.ok(!thread.includes('nie gespeichert'));
    assert.equal(
      (await t.members.Ben.post('/api/entry/create', { content: 'danach geht es wieder', reply_to: parent })).status,
      201,
    );
  });
});

describe('the same text twice at once', () => {
  const t = useBoard({ members: ['Dora'] });
  before(() => t.board.clock.advance(day + 1));

  test('two identical creates sent together: one 201, one 409 entry.duplicate, one entry stored', async () => {
    const count = entryCount(t.board);
    const text = 'Zweimal gleichzeitig abgeschickt';
    const answers = await Promise.all([0, 1].map(() => t.members.Dora.post('/api/entry/create', { content: text })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 409]);
    assertError(answers.find((a) => a.status === 409)!, 409, 'entry.duplicate', { exact: true, field: 'content' });
    assert.equal(entryCount(t.board), count + 1);
    const found = (await visitor(t.board).get('/api/search/0?q=gleichzeitig abgeschickt')).body as unknown[];
    assert.equal(found.length, 1, 'the refused copy left no index row');
  });
});
