import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { maxFollows } from '../../lib/product.ts';
import {
  assertDocumented,
  assertError,
  followersTold,
  limitsOff,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/** docs/API.md "Following threads": who is told of replies below a followed entry, how often, and what stops it. */

interface Seen {
  kind: string;
  pid: number;
  read: number;
}

/** The board of the suite running now: its followers are told just after a reply's 201. */
let current: TestBoard;

async function seen(client: Client): Promise<Seen[]> {
  await followersTold(current);
  const answer = await client.get('/api/user/notifications/0');
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return answer.body.map((n: { kind: string; read: number; entry: { pid: number } }) => ({
    kind: n.kind,
    pid: n.entry.pid,
    read: n.read,
  }));
}

/** The thread_reply notifications of a client about entries after `after`. */
async function threadReplies(client: Client, after: number): Promise<Seen[]> {
  return (await seen(client)).filter((n) => n.kind === 'thread_reply' && n.pid > after);
}

async function follow(client: Client, pid: number, on = true): Promise<void> {
  const answer = await client.post(`/api/entry/${pid}/${on ? 'follow' : 'unfollow'}`);
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  assert.deepEqual(answer.body, { status: 'ok', following: on ? 1 : 0 });
}

async function readAll(client: Client): Promise<void> {
  assert.equal((await client.post('/api/user/notifications/read')).status, 200);
}

function storedFollows(board: TestBoard, uid: number): number[] {
  return board.app.services.db
    .all<{ pid: number }>('SELECT pid FROM follows WHERE uid = ? ORDER BY pid', uid)
    .map((r) => r.pid);
}

describe('following: who is told', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Carla', 'Dora'] });
  before(() => {
    current = t.board;
  });

  test('a reply anywhere below a followed entry tells the follower; one outside its subtree does not', async () => {
    const { Anna, Bert, Carla, Dora } = t.members;
    const top = await post(Anna, 'Was lest ihr gerade?');
    const branch = await post(Bert, 'Einen Krimi.', top);
    const sibling = await post(Bert, 'Und nebenbei Gedichte.', top);
    await follow(Carla, branch);
    const deep = await post(Dora, 'Welchen denn?', await post(Anna, 'Welchen?', branch));
    const told = await threadReplies(Carla, branch);
    assert.equal(told.length, 1, JSON.stringify(told));
    assert.equal(told[0]!.read, 0);
    const first = told[0]!.pid;
    assert.ok(first > branch && first <= deep, 'the notification is of a reply below the followed entry');
    await readAll(Carla);
    await post(Dora, 'Nicht unter dem Zweig.', sibling);
    assert.deepEqual(await threadReplies(Carla, deep), [], 'a reply outside the subtree tells nothing');
  });

  test('one notification per followed thread until it is read, however many replies come', async () => {
    const { Anna, Bert, Carla, Dora } = t.members;
    const top = await post(Anna, 'Ein lebhafter Thread.');
    await follow(Carla, top);
    let parent = top;
    for (let i = 0; i < 5; i++) parent = await post(i % 2 ? Bert : Dora, `Antwort ${i}`, parent);
    const told = await threadReplies(Carla, top);
    assert.equal(told.length, 1, 'five replies, one notification');
    const unread = (await Carla.get('/api/user/notifications/unread')).body.count;
    assert.equal(unread, 1);
    await readAll(Carla);
    const after = await post(Bert, 'Noch eine, nach dem Lesen.', parent);
    const again = await threadReplies(Carla, top);
    assert.equal(again.length, 2, 'read, then the next reply tells again');
    assert.equal(again[0]!.pid, after);
    assert.equal(again[0]!.read, 0);
  });

  test('the follower of several ancestors is told once per reply, and the outermost followed entry is named', async () => {
    const { Anna, Bert, Carla } = t.members;
    const top = await post(Anna, 'Zwei Ebenen gefolgt.');
    const mid = await post(Bert, 'Mitte.', top);
    await follow(Carla, top);
    await follow(Carla, mid);
    const reply = await post(Bert, 'Unten.', mid);
    assert.deepEqual(await threadReplies(Carla, top), [{ kind: 'thread_reply', pid: reply, read: 0 }]);
    const stored = t.board.app.services.db.one<{ thread: number }>(
      'SELECT thread FROM notifications WHERE uid = ? AND pid = ?',
      uidOf(t.board, 'Carla'),
      reply,
    );
    assert.equal(stored?.thread, top);
    await readAll(Carla);
  });

  test('never the reply’s own author, never an account that muted it, and a direct reply stays a `reply`', async () => {
    const { Anna, Bert, Carla, Dora } = t.members;
    const top = await post(Anna, 'Gemischte Gesellschaft.');
    const mid = await post(Carla, 'Ich folge hier.', top);
    await follow(Carla, top);
    await follow(Bert, top);
    assert.equal((await Carla.post('/api/user/mute', { user: 'Dora' })).status, 200);
    const loud = await post(Dora, 'Laut.', mid);
    assert.deepEqual(
      (await seen(Carla)).filter((n) => n.pid === loud),
      [],
      "a muted account's reply tells nothing, not even as a reply",
    );
    const bertsOwn = await post(Bert, 'Meine eigene.', loud);
    assert.deepEqual(
      (await threadReplies(Bert, top)).filter((n) => n.pid === bertsOwn),
      [],
      'the author is not told of the own reply',
    );
    const direct = await post(Anna, 'Direkt an Carla.', mid);
    assert.deepEqual(
      (await seen(Carla)).filter((n) => n.pid === direct),
      [{ kind: 'reply', pid: direct, read: 0 }],
      'told once, as the reply it is',
    );
    assert.equal((await Carla.post('/api/user/unmute', { user: 'Dora' })).status, 200);
    await readAll(Carla);
    await readAll(Bert);
  });

  test('an unread notification of a reply deleted since does not keep the thread silent', async () => {
    const { Anna, Bert, Carla } = t.members;
    const top = await post(Anna, 'Hier wird gelöscht.');
    await follow(Carla, top);
    const gone = await post(Bert, 'Gleich weg.', top);
    assert.deepEqual(await threadReplies(Carla, top), [{ kind: 'thread_reply', pid: gone, read: 0 }]);
    assert.equal((await Bert.post(`/api/entry/${gone}/delete`)).status, 200);
    assert.deepEqual(await threadReplies(Carla, top), [], 'the deleted reply’s notification is hidden');
    const next = await post(Bert, 'Die nächste.', top);
    assert.deepEqual(await threadReplies(Carla, top), [{ kind: 'thread_reply', pid: next, read: 0 }]);
    await readAll(Carla);
  });

  test('unfollow: later replies tell nothing; unfollowing twice, or an unknown entry, answers 200', async () => {
    const { Anna, Bert, Carla } = t.members;
    const top = await post(Anna, 'Bald entfolgt.');
    const mid = await post(Bert, 'Mitte.', top);
    await follow(Carla, top);
    await follow(Carla, top, false);
    await follow(Carla, top, false);
    await follow(Carla, 999_999, false);
    await post(Bert, 'Niemand hört zu.', mid);
    assert.deepEqual(await threadReplies(Carla, top), []);
    assert.ok(!storedFollows(t.board, uidOf(t.board, 'Carla')).includes(top));
  });
});

describe('following: the author’s default and the setting', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Carla'] });
  before(() => {
    current = t.board;
  });

  test('a new thread is followed by its author: replies below the first level tell them as thread_reply', async () => {
    const { Anna, Bert, Carla } = t.members;
    const top = await post(Anna, 'Mein Thread.');
    const state = await Anna.get('/api/user/following/state');
    assert.equal(state.status, 200, state.text);
    assertDocumented(state);
    assert.equal(state.body.own_threads, 1);
    assert.ok(state.body.pids.includes(top));
    const first = await post(Bert, 'Erste Ebene.', top);
    const second = await post(Carla, 'Zweite Ebene.', first);
    const kinds = (await seen(Anna)).filter((n) => n.pid >= first).map((n) => [n.kind, n.pid]);
    assert.deepEqual(kinds, [
      ['thread_reply', second],
      ['reply', first],
    ]);
    const reply = await post(Anna, 'Eine Antwort ist kein Thread.', second);
    assert.ok(!storedFollows(t.board, uidOf(t.board, 'Anna')).includes(reply), 'only threads are followed by default');
  });

  test('switched off in the settings, new threads are not followed; existing follows stay; stored per account', async () => {
    const { Anna, Bert, Carla } = t.members;
    const before = await post(Anna, 'Vor dem Umschalten.');
    const off = await Anna.post('/api/user/following/own-threads', { follow: '0' });
    assert.equal(off.status, 200, off.text);
    assertDocumented(off);
    assert.equal(off.body.own_threads, 0);
    const db = t.board.app.services.db;
    assert.equal(
      db.one<{ f: number }>('SELECT follow_own_threads AS f FROM users WHERE uid = ?', uidOf(t.board, 'Anna'))?.f,
      0,
    );
    const top = await post(Anna, 'Nach dem Umschalten.');
    await post(Carla, 'Tief.', await post(Bert, 'Erste.', top));
    assert.deepEqual(await threadReplies(Anna, top), [], 'not followed, so not told');
    const follows = storedFollows(t.board, uidOf(t.board, 'Anna'));
    assert.ok(follows.includes(before) && !follows.includes(top));
    const bertsThread = await post(Bert, 'Bert folgt weiter.');
    assert.ok(
      storedFollows(t.board, uidOf(t.board, 'Bert')).includes(bertsThread),
      'another account keeps its default',
    );
    assert.equal((await Anna.post('/api/user/following/own-threads', { follow: '1' })).body.own_threads, 1);
    assertError(await Anna.post('/api/user/following/own-threads', { follow: 'ja' }), 400, 'input.invalid', 'follow');
  });
});

describe('following: the list, the bound and bad requests', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  before(() => {
    current = t.board;
  });

  test('GET /api/user/following/{page}: most recently followed first, each with its Entry', async () => {
    const { Anna, Bert } = t.members;
    const a = await post(Anna, 'Eins.');
    const b = await post(Anna, 'Zwei.', a);
    await follow(Bert, a);
    t.board.clock.advance(5);
    await follow(Bert, b);
    const page = await Bert.get('/api/user/following/0');
    assert.equal(page.status, 200, page.text);
    assertDocumented(page);
    assert.deepEqual(
      page.body.map((f: { pid: number; entry: { pid: number; content: string } }) => [f.pid, f.entry.content]),
      [
        [b, 'Zwei.'],
        [a, 'Eins.'],
      ],
    );
    assert.equal(page.body[0].followed_at, t.board.clock.now());
    assert.deepEqual((await Bert.get('/api/user/following/1')).body, []);
    assertError(await Bert.get('/api/user/following/101'), 400, 'input.invalid', 'page');
  });

  test('following needs a session and a live entry; a bad pid is 400', async () => {
    const { Anna, Bert } = t.members;
    const gone = await post(Anna, 'Gleich gelöscht.');
    assert.equal((await Anna.post(`/api/entry/${gone}/delete`)).status, 200);
    assertError(await Bert.post(`/api/entry/${gone}/follow`), 404, 'entry.not_found');
    assertError(await Bert.post('/api/entry/999999/follow'), 404, 'entry.not_found');
    assertError(await Bert.post('/api/entry/abc/follow'), 400, 'input.invalid', 'pid');
    assertError(await visitor(t.board).post(`/api/entry/${gone}/follow`), 401, 'auth.required');
    assertError(await visitor(t.board).get('/api/user/following/0'), 401, 'auth.required');
  });

  test(`an account holds at most ${maxFollows} follows: one more is 400, following one again is fine`, async () => {
    const { Anna, Bert } = t.members;
    const db = t.board.app.services.db;
    const bert = uidOf(t.board, 'Bert');
    const held = storedFollows(t.board, bert).length;
    const first = await post(Anna, 'Das erste Ziel.');
    await follow(Bert, first);
    // The rest straight into the table: what 999 follow requests would have written.
    db.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO follows (uid, pid, created_at) SELECT ?, 10000000 + i, 0 FROM n`,
      maxFollows - held - 1,
      bert,
    );
    const next = await post(Anna, 'Eins zu viel.');
    assertError(await Bert.post(`/api/entry/${next}/follow`), 400, 'input.invalid', 'pid');
    await follow(Bert, first); // already followed: no new row, no error
    assert.equal(storedFollows(t.board, bert).length, maxFollows);
    await follow(Bert, first, false);
    await follow(Bert, next);
  });
});

describe('following: the cost of a reply', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  before(() => {
    current = t.board;
  });

  test('the followers are found from the ancestor chain through follows_by_entry, never by a scan', async () => {
    const { Anna, Bert } = t.members;
    const top = await post(Anna, 'Kette.');
    let parent = top;
    for (let i = 0; i < 5; i++) parent = await post(i % 2 ? Anna : Bert, `Glied ${i}`, parent);
    await follow(Bert, top);
    const db = t.board.app.services.db;
    const writable = db as { all: typeof db.all };
    const original = db.all;
    const seenSql: { sql: string; params: unknown[] }[] = [];
    writable.all = ((sql: string, ...params: unknown[]) => {
      seenSql.push({ sql, params });
      return original(sql, ...(params as []));
    }) as typeof db.all;
    try {
      await post(Anna, 'Neu unten.', parent);
      await followersTold(t.board);
    } finally {
      writable.all = original;
    }
    const fanOut = seenSql.find((s) => s.sql.includes("'thread_reply'"));
    assert.ok(fanOut, 'the fan-out statement ran');
    const plan = (db.raw.prepare(`EXPLAIN QUERY PLAN ${fanOut.sql}`).all(...fanOut.params) as { detail: string }[]).map(
      (r) => r.detail,
    );
    assert.ok(
      plan.some((line) => /SEARCH f USING (COVERING )?INDEX follows_by_entry/.test(line)),
      plan.join('\n'),
    );
    assert.ok(
      plan.some((line) => /SEARCH n USING INDEX notifications_thread_unread/.test(line)),
      plan.join('\n'),
    );
    assert.ok(!plan.some((line) => /^SCAN (f|n|m|e|follows|notifications|entries)\b/.test(line)), plan.join('\n'));
  });
});
