import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { readFeedPage, readThread, readUserFeedPage } from '../../lib/entries/reads.ts';
import { findUserByName } from '../../lib/accounts/users.ts';
import {
  accountRemovalDone,
  day,
  imageFixture,
  limitsOff,
  member,
  moderator,
  password,
  post,
  startProxiedBoard,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { assertStoredLatestMatchesBruteForce, latestOf } from '../helpers/entries.ts';
import { prng } from '../helpers/prng.ts';

/**
 * The response cache (lib/http/response-cache.ts) keeps the serialised JSON of feed pages, threads and user feeds.
 * Every test here reads the pages a write affects first, so they sit in the cache, then writes
 * through the API and reads them again at once: the answer must show the change and must equal
 * what lib/entries/reads.ts computes fresh from the database.
 */

const feedPath = (page: number) => `/api/entry/feed/${page}`;
const threadPath = (pid: number) => `/api/entry/${pid}/thread`;
const userFeedPath = (name: string, page: number) => `/api/u/${encodeURIComponent(name)}/feed/${page}`;

/** The page computed from the database now, bypassing the cache; undefined for an unknown entry. */
function freshPage(board: TestBoard, path: string): unknown {
  const { db } = board.app.services;
  const feed = /^\/api\/entry\/feed\/(\d+)$/.exec(path);
  const thread = /^\/api\/entry\/(\d+)\/thread$/.exec(path);
  const userFeed = /^\/api\/u\/([^/]+)\/feed\/(\d+)$/.exec(path);
  let value: unknown;
  if (feed) value = readFeedPage(db, Number(feed[1]));
  else if (thread) value = readThread(db, Number(thread[1]));
  else if (userFeed) {
    const user = findUserByName(db, decodeURIComponent(userFeed[1]!));
    value = user && readUserFeedPage(db, user.uid, Number(userFeed[2])).entries;
  } else throw new Error(`not a cached page: ${path}`);
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** GET a page and assert it equals the fresh computation (404 where the entry is gone). */
async function readPage(board: TestBoard, path: string, note = ''): Promise<any> {
  const answer = await board.client().get(path);
  const expected = freshPage(board, path);
  if (expected === undefined) {
    assert.equal(answer.status, 404, `${path} ${note}: ${answer.text}`);
    return undefined;
  }
  assert.equal(answer.status, 200, `${path} ${note}: ${answer.text}`);
  assert.deepStrictEqual(answer.body, expected, `${path} ${note}: the served page differs from a fresh computation`);
  return answer.body;
}

/** Reads every page (so it is cached, or checked against the cache) and returns them by path. */
async function readPages(board: TestBoard, paths: string[], note = ''): Promise<Record<string, any>> {
  const pages: Record<string, any> = {};
  for (const path of paths) pages[path] = await readPage(board, path, note);
  return pages;
}

interface EntryLike {
  pid: number;
  uid: number;
  username: string;
  avatar: string;
  latest?: { entry: EntryLike; skipped: number };
}

/** Every Entry a page shows: feed entries, thread entry, ancestors, replies and each `latest.entry`. */
function entriesIn(value: unknown): EntryLike[] {
  if (Array.isArray(value)) return value.flatMap(entriesIn);
  if (!value || typeof value !== 'object') return [];
  if ('pid' in value && 'uid' in value) {
    const entry = value as EntryLike;
    return [entry, ...(entry.latest ? entriesIn(entry.latest.entry) : [])];
  }
  return Object.values(value).flatMap(entriesIn);
}

function findIn(entries: { pid: number }[], pid: number): any {
  return entries.find((e) => e.pid === pid);
}

/** A reply chain: pids[0] is top-level, pids[i] replies to pids[i - 1]; authors take turns. */
async function chain(board: TestBoard, authors: Client[], length: number, label: string): Promise<number[]> {
  const pids = [await post(authors[0]!, `${label} 0`)];
  for (let i = 1; i <= length; i++) {
    board.clock.advance(1);
    pids.push(await post(authors[i % authors.length]!, `${label} ${i}`, pids[i - 1]));
  }
  board.clock.advance(1);
  return pids;
}

/** Enough newer top-level entries that everything older moves to feed page 1 or later. */
async function pushDownFeed(board: TestBoard, author: Client, label: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    board.clock.advance(1);
    await post(author, `${label} Füller ${i}`);
  }
  board.clock.advance(1);
}

async function ok(answer: Promise<{ status: number; text: string }>, status = 200): Promise<void> {
  const settled = await answer;
  assert.equal(settled.status, status, settled.text);
}

describe('response cache: every write is visible at once in cached feed pages and threads', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  before(() => pushDownFeed(t.board, t.members.Anna, 'Start'));

  test('the pages really come from the cache: a change made behind its back stays invisible until a write in the thread', async () => {
    // Without this, every other test here could pass with the cache switched off.
    const root = await post(t.members.Anna, 'echt');
    const reply = await post(t.members.Bert, 'Antwort', root);
    const paths = [feedPath(0), threadPath(root), threadPath(reply)];
    await readPages(t.board, paths);
    t.board.app.services.db.run("UPDATE entries SET content = 'heimlich' WHERE pid = ?", root);
    for (const path of paths) {
      const answer = await visitor(t.board).get(path);
      assert.equal(answer.text.includes('heimlich'), false, `${path} is served from the cache`);
    }
    await ok(t.members.Bert.post(`/api/entry/${reply}/edit`, { content: 'Antwort, bearbeitet' }));
    const pages = await readPages(t.board, paths, 'after an edit in the same thread');
    assert.equal(findIn(pages[feedPath(0)], root).content, 'heimlich');
    assert.equal(pages[threadPath(reply)].ancestors[0].content, 'heimlich');
  });

  test('user feeds come from the cache too, and show at once a reply by someone else, a new entry, a delete, a removal and a restore', async () => {
    const own = await post(t.members.Anna, 'meins');
    const paths = [userFeedPath('Anna', 0), userFeedPath('Anna', 1)];
    await readPages(t.board, paths);
    t.board.app.services.db.run("UPDATE entries SET content = 'verborgen' WHERE pid = ?", own);
    assert.equal((await visitor(t.board).get(paths[0]!)).text.includes('verborgen'), false, 'served from the cache');
    await post(t.members.Bert, 'Antwort von Bert', own); // reply_count and last_activity of Anna's entry move
    let pages = await readPages(t.board, paths, 'after a reply by someone else');
    assert.equal(findIn(pages[paths[0]!], own).reply_count, 1);
    assert.equal(findIn(pages[paths[0]!], own).content, 'verborgen');
    const newer = await post(t.members.Anna, 'noch eins');
    pages = await readPages(t.board, paths, 'after her new entry');
    assert.equal(pages[paths[0]!][0].pid, newer);
    await ok(t.members.Anna.post(`/api/entry/${newer}/delete`));
    pages = await readPages(t.board, paths, 'after her delete');
    assert.equal(findIn(pages[paths[0]!], newer), undefined);
    const mod = await moderator(t.board, 'Mona');
    await ok(mod.post(`/api/mod/entry/${own}/remove`, { reason: 'Spam' }));
    pages = await readPages(t.board, paths, 'after a removal by a moderator');
    assert.equal(findIn(pages[paths[0]!], own), undefined);
    await ok(mod.post(`/api/mod/entry/${own}/restore`));
    pages = await readPages(t.board, paths, 'after the restore');
    assert.equal(findIn(pages[paths[0]!], own).content, 'verborgen');
  });

  test("a write by another process (board-admin) shows at once: the cache checks SQLite's data_version", async () => {
    const root = await post(t.members.Anna, 'vorher');
    const paths = [feedPath(0), threadPath(root)];
    await readPages(t.board, paths);
    const other = new Database(t.board.config.dbPath);
    try {
      other.prepare("UPDATE entries SET content = 'von außen' WHERE pid = ?").run(root);
    } finally {
      other.close();
    }
    const pages = await readPages(t.board, paths, 'after a write through another connection');
    assert.equal(findIn(pages[feedPath(0)], root).content, 'von außen');
    assert.equal(pages[threadPath(root)].entry.content, 'von außen');
  });

  test('a new top-level entry appears on top of feed page 0 and pushes the last one to page 1', async () => {
    const before = await readPages(t.board, [feedPath(0), feedPath(1)]);
    const lastOnPage0 = before[feedPath(0)][19].pid;
    t.board.clock.advance(1);
    const pid = await post(t.members.Bert, 'ganz neu');
    const pages = await readPages(t.board, [feedPath(0), feedPath(1), threadPath(pid)]);
    assert.equal(pages[feedPath(0)][0].pid, pid);
    assert.equal(pages[feedPath(0)][0].content, 'ganz neu');
    assert.equal(pages[feedPath(0)][0].username, 'Bert');
    assert.equal(pages[feedPath(1)][0].pid, lastOnPage0);
  });

  test('a reply 30 levels deep moves last_activity, reply_count and latest of every ancestor, and the thread to the top of the feed', async () => {
    const c = await chain(t.board, [t.members.Anna, t.members.Bert], 30, 'Tief');
    await pushDownFeed(t.board, t.members.Anna, 'Tief');
    const watched = [
      feedPath(0),
      feedPath(1),
      threadPath(c[0]!),
      threadPath(c[15]!),
      threadPath(c[29]!),
      threadPath(c[30]!),
    ];
    const before = await readPages(t.board, watched);
    assert.ok(findIn(before[feedPath(1)], c[0]!), 'the thread starts on feed page 1');
    assert.deepEqual(latestOf(findIn(before[feedPath(1)], c[0]!)), { pid: c[30], skipped: 29 });

    t.board.clock.advance(60);
    const now = t.board.clock.now();
    const reply = await post(t.members.Bert, 'ganz unten', c[30]);
    const pages = await readPages(t.board, watched);

    const top = pages[feedPath(0)][0];
    assert.equal(top.pid, c[0]);
    assert.equal(top.last_activity, now);
    assert.deepEqual(latestOf(top), { pid: reply, skipped: 30 });
    assert.equal(top.latest.entry.content, 'ganz unten');
    assert.equal(findIn(pages[feedPath(1)], c[0]!), undefined, 'no longer on page 1');

    const rootThread = pages[threadPath(c[0]!)];
    assert.equal(rootThread.entry.last_activity, now);
    assert.equal(rootThread.replies[0].pid, c[1]);
    assert.equal(rootThread.replies[0].last_activity, now);
    assert.deepEqual(latestOf(rootThread.replies[0]), { pid: reply, skipped: 29 });

    const middle = pages[threadPath(c[15]!)];
    assert.equal(middle.ancestors.length, 15);
    for (const ancestor of middle.ancestors) assert.equal(ancestor.last_activity, now, `ancestor ${ancestor.pid}`);
    assert.equal(middle.entry.last_activity, now);
    assert.deepEqual(latestOf(middle.replies[0]), { pid: reply, skipped: 14 });

    const grandparent = pages[threadPath(c[29]!)];
    assert.equal(grandparent.replies[0].reply_count, 1);
    assert.deepEqual(latestOf(grandparent.replies[0]), { pid: reply, skipped: 0 });

    const parent = pages[threadPath(c[30]!)];
    assert.equal(parent.entry.reply_count, 1);
    assert.deepEqual(
      parent.replies.map((e: { pid: number }) => e.pid),
      [reply],
    );
    assert.equal(parent.ancestors.length, 30);
    for (const ancestor of parent.ancestors) assert.equal(ancestor.last_activity, now, `ancestor ${ancestor.pid}`);
  });

  test('a reply 61 levels deep moves last_activity of all ancestors but latest only of the 50 nearest', async () => {
    const c = await chain(t.board, [t.members.Anna], 60, 'Sehr tief');
    const watched = [feedPath(0), threadPath(c[0]!), threadPath(c[5]!), threadPath(c[10]!), threadPath(c[60]!)];
    const before = await readPages(t.board, watched);
    const rootBefore = findIn(before[feedPath(0)], c[0]!);
    assert.deepEqual(latestOf(rootBefore), { pid: c[50], skipped: 49 });

    t.board.clock.advance(60);
    const now = t.board.clock.now();
    const reply = await post(t.members.Bert, 'Ebene 61', c[60]);
    const pages = await readPages(t.board, watched);
    const root = findIn(pages[feedPath(0)], c[0]!);
    assert.equal(root.last_activity, now);
    assert.deepEqual(latestOf(root), { pid: c[50], skipped: 49 }, '61 levels down is out of reach');
    assert.deepEqual(
      latestOf(pages[threadPath(c[5]!)].replies[0]),
      { pid: c[56], skipped: 49 },
      'c6 is 55 levels above',
    );
    assert.deepEqual(
      latestOf(pages[threadPath(c[10]!)].replies[0]),
      { pid: reply, skipped: 49 },
      'c11 is exactly 50 levels above',
    );
    assert.equal(pages[threadPath(c[10]!)].ancestors[0].last_activity, now);
    assert.equal(pages[threadPath(c[60]!)].entry.reply_count, 1);
  });

  test('an edit of a top-level entry shows in the feed, its thread and as an ancestor', async () => {
    const root = await post(t.members.Anna, 'vorher');
    const reply = await post(t.members.Bert, 'darunter', root);
    const watched = [feedPath(0), threadPath(root), threadPath(reply)];
    await readPages(t.board, watched);
    await ok(t.members.Anna.post(`/api/entry/${root}/edit`, { content: 'nachher' }));
    const pages = await readPages(t.board, watched);
    assert.equal(findIn(pages[feedPath(0)], root).content, 'nachher');
    assert.equal(pages[threadPath(root)].entry.content, 'nachher');
    assert.equal(pages[threadPath(reply)].ancestors[0].content, 'nachher');
  });

  test("an edit of a reply that is someone's latest shows in the feed's and the thread's latest", async () => {
    const [root, middle, newest] = await chain(t.board, [t.members.Anna, t.members.Bert], 2, 'Neueste');
    const watched = [feedPath(0), threadPath(root!), threadPath(middle!), threadPath(newest!)];
    const before = await readPages(t.board, watched);
    assert.equal(findIn(before[feedPath(0)], root!).latest.entry.pid, newest);
    await ok(t.members.Anna.post(`/api/entry/${newest}/edit`, { content: 'neueste, bearbeitet' }));
    const pages = await readPages(t.board, watched);
    assert.equal(findIn(pages[feedPath(0)], root!).latest.entry.content, 'neueste, bearbeitet');
    assert.equal(pages[threadPath(root!)].replies[0].latest.entry.content, 'neueste, bearbeitet');
    assert.equal(pages[threadPath(middle!)].replies[0].content, 'neueste, bearbeitet');
    assert.equal(pages[threadPath(newest!)].entry.content, 'neueste, bearbeitet');
  });

  test('an edit of an ancestor shows in the ancestors of every thread below it', async () => {
    const c = await chain(t.board, [t.members.Anna, t.members.Bert], 3, 'Vorfahr');
    const watched = [feedPath(0), threadPath(c[0]!), threadPath(c[2]!), threadPath(c[3]!)];
    await readPages(t.board, watched);
    await ok(t.members.Bert.post(`/api/entry/${c[1]}/edit`, { content: 'Vorfahr, bearbeitet' }));
    const pages = await readPages(t.board, watched);
    assert.equal(pages[threadPath(c[0]!)].replies[0].content, 'Vorfahr, bearbeitet');
    assert.equal(pages[threadPath(c[2]!)].ancestors[1].content, 'Vorfahr, bearbeitet');
    assert.equal(pages[threadPath(c[3]!)].ancestors[1].content, 'Vorfahr, bearbeitet');
  });

  test('deleting the latest entry falls back to the next newest in the feed and in the thread, and shows the entry deleted', async () => {
    const [root, middle, deep] = await chain(t.board, [t.members.Anna, t.members.Bert], 2, 'Rückfall');
    const newest = await post(t.members.Anna, 'gleich weg', root);
    t.board.clock.advance(1);
    const watched = [feedPath(0), threadPath(root!), threadPath(middle!), threadPath(newest)];
    const before = await readPages(t.board, watched);
    assert.deepEqual(latestOf(findIn(before[feedPath(0)], root!)), { pid: newest, skipped: 0 });

    await ok(t.members.Anna.post(`/api/entry/${newest}/delete`));
    let pages = await readPages(t.board, watched);
    assert.deepEqual(latestOf(findIn(pages[feedPath(0)], root!)), { pid: deep, skipped: 1 });
    const gone = findIn(pages[threadPath(root!)].replies, newest);
    assert.equal(gone.deleted, 1);
    assert.equal(gone.content, '');
    assert.equal(pages[threadPath(newest)].entry.deleted, 1);

    await ok(t.members.Anna.post(`/api/entry/${deep}/delete`));
    pages = await readPages(t.board, watched);
    assert.deepEqual(latestOf(findIn(pages[feedPath(0)], root!)), { pid: middle, skipped: 0 });
    assert.equal(
      'latest' in findIn(pages[threadPath(root!)].replies, middle!),
      false,
      'nothing live below the middle entry',
    );
    assert.equal(pages[threadPath(middle!)].replies[0].deleted, 1);
  });

  test('deleting a top-level entry without live replies takes it out of the feed; page 1 moves up', async () => {
    const root = await post(t.members.Bert, 'bald weg');
    t.board.clock.advance(1);
    const watched = [feedPath(0), feedPath(1), threadPath(root)];
    const before = await readPages(t.board, watched);
    assert.equal(before[feedPath(0)][0].pid, root);
    const firstOfPage1 = before[feedPath(1)][0].pid;

    await ok(t.members.Bert.post(`/api/entry/${root}/delete`));
    const pages = await readPages(t.board, watched);
    assert.equal(findIn(pages[feedPath(0)], root), undefined);
    assert.equal(pages[feedPath(0)][19].pid, firstOfPage1);
    assert.equal(pages[threadPath(root)].entry.deleted, 1);
    assert.equal(pages[threadPath(root)].entry.content, '');
  });

  test('a deleted top-level entry with a live reply stays in the feed, blanked', async () => {
    const root = await post(t.members.Bert, 'bleibt als Hülle');
    const reply = await post(t.members.Anna, 'lebt weiter', root);
    t.board.clock.advance(1);
    const watched = [feedPath(0), threadPath(root), threadPath(reply)];
    await readPages(t.board, watched);
    await ok(t.members.Bert.post(`/api/entry/${root}/delete`));
    const pages = await readPages(t.board, watched);
    const shown = findIn(pages[feedPath(0)], root);
    assert.equal(shown.deleted, 1);
    assert.equal(shown.content, '');
    assert.equal(shown.latest.entry.pid, reply);
    assert.equal(pages[threadPath(reply)].ancestors[0].deleted, 1);
  });

  test('a bump moves the thread to the top of the feed and last_activity of the entry and its ancestors', async () => {
    const [root, middle, deep] = await chain(t.board, [t.members.Anna, t.members.Bert], 2, 'Schub');
    await pushDownFeed(t.board, t.members.Bert, 'Schub');
    const watched = [feedPath(0), feedPath(1), threadPath(root!), threadPath(middle!), threadPath(deep!)];
    const before = await readPages(t.board, watched);
    assert.ok(findIn(before[feedPath(1)], root!), 'the thread starts on feed page 1');

    t.board.clock.advance(3600);
    const now = t.board.clock.now();
    await ok(t.members.Bert.post(`/api/entry/${deep}/bump`));
    const pages = await readPages(t.board, watched);
    assert.equal(pages[feedPath(0)][0].pid, root);
    assert.equal(pages[feedPath(0)][0].last_activity, now);
    assert.equal(findIn(pages[feedPath(1)], root!), undefined);
    assert.equal(pages[threadPath(root!)].replies[0].last_activity, now);
    const bumped = pages[threadPath(deep!)].entry;
    assert.deepEqual([bumped.bump_count, bumped.last_bump, bumped.last_activity], [1, now, now]);
    for (const ancestor of pages[threadPath(deep!)].ancestors) assert.equal(ancestor.last_activity, now);
    assert.equal(pages[threadPath(middle!)].replies[0].bump_count, 1);
  });

  /** Threads where `who` shows as top-level author, ancestor, reply, and latest in someone else's thread. */
  async function entriesBy(who: Client, other: Client, label: string) {
    const own = await post(who, `${label}: eigener Faden`);
    const answer = await post(other, `${label}: Antwort`, own);
    const deep = await post(who, `${label}: tiefer`, answer);
    const foreign = await post(other, `${label}: fremder Faden`);
    const latest = await post(who, `${label}: neueste im fremden Faden`, foreign);
    t.board.clock.advance(1);
    return { own, answer, deep, foreign, latest };
  }

  function assertAuthorShown(
    pages: Record<string, any>,
    uid: number,
    field: 'username' | 'avatar',
    value: string,
    atLeast: number,
  ) {
    let seen = 0;
    for (const [path, page] of Object.entries(pages)) {
      for (const entry of entriesIn(page)) {
        if (entry.uid !== uid) continue;
        seen++;
        assert.equal(entry[field], value, `${field} of entry ${entry.pid} in ${path}`);
      }
    }
    assert.ok(seen >= atLeast, `the author shows ${seen} times, expected at least ${atLeast}`);
  }

  test('a rename shows the new name everywhere: feed, thread entry, ancestors, replies and latest', async () => {
    const rita = await member(t.board, 'Rita');
    const threads = await entriesBy(rita, t.members.Anna, 'Umbenennung');
    const watched = [
      feedPath(0),
      threadPath(threads.own),
      threadPath(threads.answer),
      threadPath(threads.deep),
      threadPath(threads.foreign),
    ];
    const before = await readPages(t.board, watched);
    assertAuthorShown(before, uidOf(t.board, 'Rita'), 'username', 'Rita', 8);

    await ok(rita.post('/api/user/rename', { user: 'Rita Neu' }));
    const pages = await readPages(t.board, watched);
    assertAuthorShown(pages, uidOf(t.board, 'Rita Neu'), 'username', 'Rita Neu', 8);
    assert.equal(findIn(pages[feedPath(0)], threads.foreign).latest.entry.username, 'Rita Neu');
    assert.equal(pages[threadPath(threads.deep)].ancestors[0].username, 'Rita Neu');
  });

  test('an avatar change shows the new path everywhere the author appears', async () => {
    const paul = await member(t.board, 'Paul');
    const threads = await entriesBy(paul, t.members.Bert, 'Bild');
    const watched = [
      feedPath(0),
      threadPath(threads.own),
      threadPath(threads.answer),
      threadPath(threads.deep),
      threadPath(threads.foreign),
    ];
    const uid = uidOf(t.board, 'Paul');
    assertAuthorShown(await readPages(t.board, watched), uid, 'avatar', '', 8);

    for (const colour of ['#123456', '#654321']) {
      const upload = await paul.postMultipart('/api/user/avatar', {}, [
        {
          name: 'avatar',
          filename: 'a.png',
          type: 'image/png',
          data: await imageFixture({ format: 'png', background: colour }),
        },
      ]);
      assert.equal(upload.status, 200, upload.text);
      const pages = await readPages(t.board, watched);
      assertAuthorShown(pages, uid, 'avatar', upload.body.avatar, 8);
      assert.equal(findIn(pages[feedPath(0)], threads.foreign).latest.entry.avatar, upload.body.avatar);
    }
  });

  test('an account deletion turns entries with replies into tombstones (uid 0, username "") and removes the rest', async () => {
    const dora = await member(t.board, 'Dora');
    const threads = await entriesBy(dora, t.members.Anna, 'Abschied');
    const lonely = await post(dora, 'Abschied: ohne Antwort');
    t.board.clock.advance(1);
    const watched = [
      feedPath(0),
      threadPath(threads.own),
      threadPath(threads.answer),
      threadPath(threads.deep),
      threadPath(threads.foreign),
      threadPath(threads.latest),
      threadPath(lonely),
    ];
    const before = await readPages(t.board, watched);
    assert.equal(findIn(before[feedPath(0)], threads.foreign).latest.entry.pid, threads.latest);
    const doraUid = uidOf(t.board, 'Dora');

    await ok(dora.post('/api/user/delete', { pass1: password }));
    await accountRemovalDone(t.board);
    const pages = await readPages(t.board, watched);
    for (const [path, page] of Object.entries(pages)) {
      for (const entry of entriesIn(page))
        assert.notEqual(entry.uid, doraUid, `entry ${entry.pid} in ${path} still shows the deleted account`);
    }
    const tombstone = findIn(pages[feedPath(0)], threads.own);
    assert.deepEqual(
      [tombstone.uid, tombstone.username, tombstone.avatar, tombstone.deleted, tombstone.content],
      [0, '', '', 1, ''],
    );
    assert.equal(
      tombstone.latest.entry.pid,
      threads.answer,
      "Dora's deep reply is gone; Anna's answer is the newest left",
    );
    assert.equal(pages[threadPath(threads.answer)].ancestors[0].uid, 0);
    assert.equal(pages[threadPath(threads.answer)].ancestors[0].username, '');
    assert.deepEqual(pages[threadPath(threads.answer)].replies, [], 'the deep reply had no replies, so it is removed');
    assert.equal(pages[threadPath(threads.deep)], undefined);
    assert.equal(pages[threadPath(threads.latest)], undefined);
    assert.equal(
      'latest' in findIn(pages[feedPath(0)], threads.foreign),
      false,
      "the foreign thread's only reply is gone",
    );
    assert.equal(findIn(pages[feedPath(0)], threads.foreign).reply_count, 0);
    assert.equal(findIn(pages[feedPath(0)], lonely), undefined);
  });

  test('a vote changes nothing the pages show, and they stay right', async () => {
    const root = await post(t.members.Anna, 'Abstimmung');
    const reply = await post(t.members.Bert, 'dafür', root);
    const watched = [feedPath(0), threadPath(root), threadPath(reply)];
    const before = await readPages(t.board, watched);
    await ok(t.members.Bert.post(`/api/entry/${root}/vote`, { mode: 'yes' }));
    await ok(t.members.Anna.post(`/api/entry/${reply}/vote`, { mode: 'no' }));
    assert.deepStrictEqual(await readPages(t.board, watched), before);
  });
});

describe('response cache: one per board', () => {
  test("two boards in one process never see each other's pages, even with the same pids", async () => {
    const one = await startProxiedBoard(limitsOff);
    const two = await startProxiedBoard(limitsOff);
    try {
      const onePid = await post(await member(one, 'Eins'), 'Brett eins');
      const twoPid = await post(await member(two, 'Zwei'), 'Brett zwei');
      assert.equal(onePid, twoPid, 'the same pid on both boards');
      for (let round = 0; round < 2; round++) {
        const pages1 = await readPages(one, [feedPath(0), threadPath(onePid)]);
        const pages2 = await readPages(two, [feedPath(0), threadPath(twoPid)]);
        assert.equal(pages1[feedPath(0)][0].content, 'Brett eins');
        assert.equal(pages1[threadPath(onePid)].entry.username, 'Eins');
        assert.equal(pages2[feedPath(0)][0].content, 'Brett zwei');
        assert.equal(pages2[threadPath(twoPid)].entry.username, 'Zwei');
      }
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('response cache under random writes', () => {
  test('after each of 200 random writes, feed pages, threads and user feeds served from the cache equal a fresh computation', async () => {
    const seed = Number(process.env.VIEW_CACHE_SEED ?? 20261122);
    const random = prng(seed);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const board = await startProxiedBoard(limitsOff);
    const { db } = board.app.services;
    const members = new Map<number, { client: Client; name: string }>();
    let memberCounter = 0;
    async function join(): Promise<void> {
      const name = `Nutzer ${++memberCounter}`;
      const client = await member(board, name);
      members.set(uidOf(board, name), { client, name });
    }
    try {
      for (let i = 0; i < 4; i++) await join();
      const avatars = [
        await imageFixture({ format: 'png', background: '#a00' }),
        await imageFixture({ format: 'png', background: '#0a0' }),
      ];

      for (let step = 0; step < 200; step++) {
        // Same second half of the time (pid breaks the tie), now and then a day (bump cooldowns).
        board.clock.advance(random() < 0.5 ? 0 : random() < 0.95 ? 1 + Math.floor(random() * 3) : day);
        const live = db.all<{ pid: number; uid: number; root: number; reply_to: number }>(
          'SELECT pid, uid, root, reply_to FROM entries WHERE deleted = 0 ORDER BY pid',
        );
        const all = db.all<{ pid: number }>('SELECT pid FROM entries ORDER BY pid').map((e) => e.pid);
        const uids = [...members.keys()];
        const target = live.length > 0 ? pick(live) : undefined;
        const related = target ? [target.pid, target.reply_to, target.root].filter((pid) => pid !== 0) : [];
        const r = random();
        let action: string;
        let write: () => Promise<void>;
        if (!target || r < 0.14) {
          const uid = pick(uids);
          action = `top-level entry by ${uid}`;
          write = async () => {
            await post(members.get(uid)!.client, `Faden ${step}`);
          };
        } else if (r < 0.44) {
          // Half the replies go to the newest entry, so chains grow deep.
          const parent = random() < 0.5 ? live[live.length - 1]! : target;
          const uid = pick(uids);
          related.push(parent.pid, parent.root);
          action = `reply to ${parent.pid} by ${uid}`;
          write = async () => {
            await post(members.get(uid)!.client, `Antwort ${step}`, parent.pid);
          };
        } else if (r < 0.56) {
          action = `edit of ${target.pid}`;
          write = () =>
            ok(
              members.get(target.uid)!.client.post(`/api/entry/${target.pid}/edit`, { content: `bearbeitet ${step}` }),
            );
        } else if (r < 0.66) {
          action = `delete of ${target.pid}`;
          write = () => ok(members.get(target.uid)!.client.post(`/api/entry/${target.pid}/delete`));
        } else if (r < 0.76) {
          const uid = pick(uids);
          action = `bump of ${target.pid} by ${uid}`;
          write = async () => {
            const answer = await members.get(uid)!.client.post(`/api/entry/${target.pid}/bump`);
            assert.ok(answer.status === 200 || answer.status === 429, answer.text);
          };
        } else if (r < 0.86) {
          const uid = pick(uids);
          const mode = pick(['yes', 'no']);
          action = `vote ${mode} on ${target.pid} by ${uid}`;
          write = () => ok(members.get(uid)!.client.post(`/api/entry/${target.pid}/vote`, { mode }));
        } else if (r < 0.92) {
          const uid = pick(uids);
          const name = `${members.get(uid)!.name.split(' v')[0]} v${step}`;
          action = `rename of ${uid} to ${name}`;
          write = async () => {
            await ok(members.get(uid)!.client.post('/api/user/rename', { user: name }));
            members.get(uid)!.name = name;
          };
        } else if (r < 0.97) {
          const uid = pick(uids);
          action = `avatar of ${uid}`;
          const data = pick(avatars);
          write = () =>
            ok(
              members
                .get(uid)!
                .client.postMultipart('/api/user/avatar', {}, [
                  { name: 'avatar', filename: 'a.png', type: 'image/png', data },
                ]),
            );
        } else {
          const uid = pick(uids);
          const own = live.filter((e) => e.uid === uid);
          if (own.length > 0) {
            const entry = pick(own);
            related.push(entry.pid, entry.root);
          }
          action = `account deletion of ${uid}`;
          write = async () => {
            await ok(members.get(uid)!.client.post('/api/user/delete', { pass1: password }));
            await accountRemovalDone(board);
            members.delete(uid);
            await join();
          };
        }

        const userFeeds = [...members.values()].flatMap(({ name }) => [userFeedPath(name, 0), userFeedPath(name, 1)]);
        const watched = [
          feedPath(0),
          feedPath(1),
          ...userFeeds,
          ...[...new Set([...related, pick(all), pick(all), pick(all)])].filter(Boolean).map(threadPath),
        ];
        const note = `(seed ${seed}, step ${step}: ${action})`;
        await readPages(board, watched, `before ${note}`);
        await write();
        await readPages(board, watched, `after ${note}`);
      }
      assertStoredLatestMatchesBruteForce(board, 'after the random writes');
    } finally {
      await board.close();
    }
  });
});
