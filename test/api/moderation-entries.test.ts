import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { collectOrphanMedia } from '../../lib/admin/gc-media.ts';
import { readFeedPage, readThread } from '../../lib/entries/reads.ts';
import { queueStalePreviews, refreshAfterSeconds, removeUnusedPreviews, savePreview } from '../../lib/preview/store.ts';
import {
  assertDocumented,
  accountRemovalDone,
  assertError,
  entryRow,
  imageFixture,
  limitsOff,
  mediaFiles,
  member,
  modlogRows,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { assertStoredLatestMatchesBruteForce, latestOf } from '../helpers/entries.ts';

/** docs/API.md "Moderation": removing and restoring entries, and what every other endpoint makes of a removed one. */

const remove = (client: Client, pid: number, reason: string | undefined = 'Spam') =>
  client.post(`/api/mod/entry/${pid}/remove`, { reason });
const restore = (client: Client, pid: number) => client.post(`/api/mod/entry/${pid}/restore`);

async function postImage(client: Client, content: string, replyTo?: number): Promise<number> {
  const answer = await client.postMultipart('/api/entry/create', { content, reply_to: replyTo }, [
    { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
  ]);
  assert.equal(answer.status, 201, answer.text);
  return answer.body.pid;
}

async function thread(board: TestBoard, pid: number): Promise<any> {
  const answer = await board.client().get(`/api/entry/${pid}/thread`);
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return answer.body;
}

async function statsDetail(board: TestBoard): Promise<{ entries: number; toplevel: number; replies: number }> {
  const { entries, toplevel, replies } = (await board.client().get('/api/stats/detail')).body;
  return { entries, toplevel, replies };
}

function openReports(board: TestBoard, pid: number): number {
  return board.app.services.db.value('SELECT count(*) FROM reports WHERE pid = ? AND closed_at = 0', pid);
}

describe('removing and restoring an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });
  let top: number;
  let reply: number;
  let child: number;
  const link = 'https://example.org/artikel';

  before(async () => {
    top = await post(t.members.Anna, 'Ein Thema');
    t.board.clock.advance(1);
    reply = await postImage(t.members.Bert, `Werbung mit Bild und Link ${link}`, top);
    t.board.clock.advance(1);
    child = await post(t.members.Anna, 'Eine Antwort auf die Werbung', reply);
    savePreview(
      t.board.app.services.db,
      { url: link, kind: 'page', title: 'Ein Artikel', site: 'example.org', thumb: '' },
      t.board.clock.now(),
    );
  });

  test('a removed entry keeps its place: deleted 1, content, filepath and preview blank, removed 1 and the public reason, in every view', async () => {
    const before = (await thread(t.board, reply)).entry;
    assert.ok(before.filepath && before.preview, 'the entry has an image and a preview');
    assert.equal('removed' in before, false, 'removed is absent on an entry that is not removed');

    const answer = await remove(t.members.Mia, reply, 'Werbung für Uhren');
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { pid: reply, status: 'removed' });

    const tombstone = {
      ...before,
      deleted: 1,
      content: '',
      filepath: '',
      removed: 1,
      removed_reason: 'Werbung für Uhren',
    };
    delete tombstone.preview;
    assert.deepEqual((await thread(t.board, reply)).entry, tombstone, 'its own thread');
    assert.deepEqual(
      (await thread(t.board, top)).replies.find((e: any) => e.pid === reply),
      { ...tombstone, latest: { entry: (await thread(t.board, child)).entry, skipped: 0 } },
      "the parent's replies",
    );
    assert.deepEqual((await thread(t.board, child)).ancestors[1], tombstone, "the child's ancestors");
    const bertsFeed = (await visitor(t.board).get('/api/u/Bert/feed/0')).body;
    assert.equal(
      bertsFeed.some((e: any) => e.pid === reply),
      false,
      "the author's feed leaves it out like a deleted one",
    );
    assert.equal((await visitor(t.board).get(`/e/${reply}`)).status, 200, 'its page still answers');

    const stored = entryRow(t.board, reply)!;
    assert.equal(stored.content, before.content, 'the text stays stored');
    assert.equal(stored.filepath, before.filepath, 'the image stays stored');
    assert.equal(stored.link, link, 'the link stays stored');
    assert.equal(stored.removed_reason, 'Werbung für Uhren');
    assert.equal(stored.removed_at, t.board.clock.now());
  });

  test('nobody can edit, delete, bump, vote on, reply to or report a removed entry: 404 entry.not_found', async () => {
    const bert = t.members.Bert;
    assertError(await bert.post(`/api/entry/${reply}/edit`, { content: 'neu' }), 404, 'entry.not_found');
    assertError(await bert.post(`/api/entry/${reply}/delete`), 404, 'entry.not_found');
    assertError(await bert.post(`/api/entry/${reply}/bump`), 404, 'entry.not_found');
    assertError(await bert.post(`/api/entry/${reply}/vote`, { mode: 'yes' }), 404, 'entry.not_found');
    assertError(
      await t.members.Anna.post('/api/entry/create', { content: 'Antwort', reply_to: reply }),
      404,
      'entry.not_found',
    );
    assertError(
      await visitor(t.board).post(`/api/entry/${reply}/report`, { reason: 'nochmal' }),
      404,
      'entry.not_found',
    );
    assertError(await remove(t.members.Mia, reply), 404, 'entry.not_found', { note: 'removing it twice' });
  });

  test('a restore gives the entry back to its author exactly as it was', async () => {
    const answer = await restore(t.members.Mia, reply);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { pid: reply, status: 'restored' });
    const entry = (await thread(t.board, reply)).entry;
    assert.equal(entry.deleted, 0);
    assert.match(entry.content, /^Werbung mit Bild/);
    assert.match(entry.filepath, /^e\/[0-9a-f]{32}\.png$/);
    assert.equal(entry.preview?.title, 'Ein Artikel');
    assert.equal('removed' in entry || 'removed_reason' in entry, false);
    assert.equal(
      (await t.members.Bert.post(`/api/entry/${reply}/edit`, { content: 'Geändert' })).status,
      200,
      'the author may edit it again',
    );
    assertError(await restore(t.members.Mia, reply), 409, 'mod.not_removed', { note: 'restoring a live entry' });
  });

  test('restore of an unknown entry answers 404, of an entry its author deleted 409 mod.not_removed', async () => {
    assertError(await restore(t.members.Mia, 987654), 404, 'entry.not_found');
    const gone = await post(t.members.Anna, 'gleich weg');
    assert.equal((await t.members.Anna.post(`/api/entry/${gone}/delete`)).status, 200);
    assertError(await restore(t.members.Mia, gone), 409, 'mod.not_removed');
    assertError(await remove(t.members.Mia, gone), 404, 'entry.not_found', {
      note: 'a deleted entry cannot be removed',
    });
    assertError(await remove(t.members.Mia, 987654), 404, 'entry.not_found', { note: 'nor an unknown one' });
  });

  test('every action wrote one log row naming the entry, its author and the moderator', () => {
    const rows = modlogRows(t.board).filter((r) => r.pid === reply);
    assert.deepEqual(
      rows.map((r) => [r.action, r.uid, r.reason, r.moderator_uid, r.public]),
      [
        ['restore', uidOf(t.board, 'Bert'), '', uidOf(t.board, 'Mia'), 1],
        ['remove', uidOf(t.board, 'Bert'), 'Werbung für Uhren', uidOf(t.board, 'Mia'), 1],
      ],
    );
  });
});

describe('removal, restore and the denormalised state', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('remove and restore move no last_activity and recompute `latest` of the ancestors', async () => {
    const chain = [await post(t.members.Anna, 'Wurzel')];
    for (let i = 1; i <= 4; i++) {
      t.board.clock.advance(10);
      chain.push(await post(i % 2 ? t.members.Bert : t.members.Anna, `Ebene ${i}`, chain[i - 1]));
    }
    const activity = () => chain.map((pid) => entryRow(t.board, pid)!.last_activity);
    const before = activity();
    const newest = chain[4]!;
    assert.deepEqual(
      latestOf((await t.board.client().get('/api/entry/feed/0')).body.find((e: any) => e.pid === chain[0])),
      { pid: newest, skipped: 3 },
    );

    t.board.clock.advance(100);
    assert.equal((await remove(t.members.Mia, newest)).status, 200);
    assert.deepEqual(activity(), before, 'removal moves no last_activity');
    assertStoredLatestMatchesBruteForce(t.board, 'after the removal');
    assert.deepEqual(
      latestOf((await t.board.client().get('/api/entry/feed/0')).body.find((e: any) => e.pid === chain[0])),
      { pid: chain[3]!, skipped: 2 },
    );

    assert.equal((await remove(t.members.Mia, chain[2]!)).status, 200, 'a removal in the middle of the chain');
    assertStoredLatestMatchesBruteForce(t.board, 'after the second removal');

    t.board.clock.advance(100);
    assert.equal((await restore(t.members.Mia, newest)).status, 200);
    assert.deepEqual(activity(), before, 'restore moves no last_activity');
    assertStoredLatestMatchesBruteForce(t.board, 'after the restore');
    assert.deepEqual(
      latestOf((await t.board.client().get('/api/entry/feed/0')).body.find((e: any) => e.pid === chain[0])),
      { pid: newest, skipped: 3 },
    );
    assert.equal((await restore(t.members.Mia, chain[2]!)).status, 200);
    assertStoredLatestMatchesBruteForce(t.board, 'after both restores');
  });

  test('random removals and restores keep every `latest` equal to the brute-force answer', async () => {
    const pids = [await post(t.members.Anna, 'Zufall')];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 40; i++) {
      t.board.clock.advance(random(3));
      pids.push(await post(t.members.Bert, `Zweig ${i}`, pids[random(pids.length)]));
    }
    const removed = new Set<number>();
    for (let step = 0; step < 40; step++) {
      const pid = pids[random(pids.length)]!;
      const answer = removed.has(pid)
        ? await restore(t.members.Mia, pid)
        : await remove(t.members.Mia, pid, `Schritt ${step}`);
      assert.equal(answer.status, 200, answer.text);
      if (removed.has(pid)) removed.delete(pid);
      else removed.add(pid);
      assertStoredLatestMatchesBruteForce(t.board, `after step ${step}`);
    }
  });

  test('remove and restore count in the statistics like a deletion and an undeletion', async () => {
    const top = await post(t.members.Anna, 'gezählt');
    const reply = await post(t.members.Bert, 'auch gezählt', top);
    const start = await statsDetail(t.board);
    assert.equal((await remove(t.members.Mia, reply)).status, 200);
    assert.deepEqual(await statsDetail(t.board), { ...start, entries: start.entries - 1, replies: start.replies - 1 });
    assert.equal((await remove(t.members.Mia, top)).status, 200);
    assert.deepEqual(await statsDetail(t.board), {
      ...start,
      entries: start.entries - 2,
      toplevel: start.toplevel - 1,
      replies: start.replies - 1,
    });
    assert.equal((await restore(t.members.Mia, top)).status, 200);
    assert.equal((await restore(t.members.Mia, reply)).status, 200);
    assert.deepEqual(await statsDetail(t.board), start);
    assert.deepEqual((await t.board.client().get('/api/stats')).body.entries, start.entries);
  });

  test('cached feed pages and threads show a removal and a restore at once', async () => {
    const top = await post(t.members.Anna, 'im Cache');
    const reply = await post(t.members.Bert, 'Antwort im Cache', top);
    const paths = ['/api/entry/feed/0', `/api/entry/${top}/thread`, `/api/entry/${reply}/thread`];
    const fresh = (path: string) => {
      const { db } = t.board.app.services;
      const value = path.includes('feed') ? readFeedPage(db, 0) : readThread(db, Number(path.split('/')[3]));
      return JSON.parse(JSON.stringify(value));
    };
    const readAll = async (note: string) => {
      for (const path of paths) {
        const answer = await t.board.client().get(path);
        assert.deepStrictEqual(answer.body, fresh(path), `${path} ${note}`);
      }
    };
    await readAll('before'); // now cached
    assert.equal((await remove(t.members.Mia, reply, 'Cache-Test')).status, 200);
    await readAll('after the removal');
    assert.equal((await thread(t.board, reply)).entry.removed_reason, 'Cache-Test');
    assert.equal((await restore(t.members.Mia, reply)).status, 200);
    await readAll('after the restore');
    assert.equal((await thread(t.board, reply)).entry.content, 'Antwort im Cache');
  });

  test("removing closes every open report on the entry, recording how and when; other entries' reports stay open", async () => {
    const spam = await post(t.members.Bert, 'Spam');
    const other = await post(t.members.Bert, 'auch gemeldet');
    await visitor(t.board).post(`/api/entry/${spam}/report`, { reason: 'eins' });
    await t.members.Anna.post(`/api/entry/${spam}/report`, { reason: 'zwei' });
    await visitor(t.board).post(`/api/entry/${other}/report`, { reason: 'drei' });
    t.board.clock.advance(60);
    assert.equal((await remove(t.members.Mia, spam)).status, 200);
    const { db } = t.board.app.services;
    const logId = db.one<{ id: number }>("SELECT id FROM modlog WHERE action = 'remove' AND pid = ?", spam)!.id;
    const closed = db.all<{ closed_at: number; closed_action: string; closed_log_id: number }>(
      'SELECT closed_at, closed_action, closed_log_id FROM reports WHERE pid = ?',
      spam,
    );
    assert.deepEqual(
      closed,
      [1, 2].map(() => ({ closed_at: t.board.clock.now(), closed_action: 'remove', closed_log_id: logId })),
    );
    assert.equal(openReports(t.board, other), 1);
  });
});

describe('removed entries and storage', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test("gc-media keeps a removed entry's image, and the preview sweep keeps its link in use", async () => {
    const link = 'https://example.org/behalten';
    const pid = await postImage(t.members.Anna, `Bild und ${link}`);
    const { db } = t.board.app.services;
    savePreview(
      db,
      { url: link, kind: 'page', title: 'Behalten', site: 'example.org', thumb: '' },
      t.board.clock.now(),
    );
    assert.equal((await remove(t.members.Mia, pid)).status, 200);
    const filepath = entryRow(t.board, pid)!.filepath;

    const gc = await collectOrphanMedia(t.board.config, db, Date.now() + 7 * 86_400_000);
    assert.equal(gc.removed.includes(filepath), false, 'the image of a removed entry is in use');

    const later = t.board.clock.now() + refreshAfterSeconds + 1;
    assert.equal(queueStalePreviews(db, later), 1, "a stale record of a removed entry's link is refreshed");
    assert.deepEqual(removeUnusedPreviews(db, later), []);
    assert.ok(db.one('SELECT 1 FROM previews WHERE url = ?', link), 'the record stays');
  });

  test("a removed entry's image answers 404 while removed and again 200 after a restore", async () => {
    const pid = await postImage(t.members.Anna, 'Bild weg');
    const path = `/static/media/${entryRow(t.board, pid)!.filepath}`;
    assert.equal((await visitor(t.board).get(path)).status, 200);
    assert.equal((await remove(t.members.Mia, pid)).status, 200);
    assert.equal((await visitor(t.board).get(path)).status, 404);
    assert.equal((await restore(t.members.Mia, pid)).status, 200);
    assert.equal((await visitor(t.board).get(path)).status, 200);
  });

  test("account deletion erases a removed entry's text and image like the author's others; a later restore answers 404", async () => {
    const carol = await member(t.board, 'Carol');
    const lonely = await postImage(carol, 'allein und entfernt');
    const answered = await postImage(carol, 'entfernt, mit Antwort');
    await post(t.members.Anna, 'eine Antwort', answered);
    assert.equal((await remove(t.members.Mia, lonely)).status, 200);
    assert.equal((await remove(t.members.Mia, answered)).status, 200);
    const files = [entryRow(t.board, lonely)!.filepath, entryRow(t.board, answered)!.filepath];
    const statsBefore = await statsDetail(t.board);

    assert.equal((await carol.post('/api/user/delete', { pass1: password })).status, 200);
    await accountRemovalDone(t.board); // entries and files go in the background (docs/API.md "POST /api/user/delete")
    assert.equal(entryRow(t.board, lonely), undefined, 'the entry without replies is gone');
    const tombstone = entryRow(t.board, answered)!;
    assert.deepEqual(
      [tombstone.uid, tombstone.content, tombstone.filepath, tombstone.link],
      [0, '', '', ''],
      'text, image and link erased',
    );
    for (const file of files) assert.equal(mediaFiles(t.board).includes(file), false, `${file} deleted`);
    assert.deepEqual(await statsDetail(t.board), statsBefore, 'removed entries were not counted a second time');

    assertError(await restore(t.members.Mia, lonely), 404, 'entry.not_found');
    assertError(await restore(t.members.Mia, answered), 404, 'entry.not_found');
  });

  test("a restore while the author's account is being deleted (its row gone, its entries not yet) answers 404", async () => {
    const dora = await member(t.board, 'Dora');
    const pid = await post(dora, 'bald ohne Konto');
    assert.equal((await remove(t.members.Mia, pid)).status, 200);
    t.board.app.services.db.run('DELETE FROM users WHERE uid = ?', uidOf(t.board, 'Dora'));
    assertError(await restore(t.members.Mia, pid), 404, 'entry.not_found');
    assert.equal(entryRow(t.board, pid)!.removed, 1, 'still removed');
  });
});
