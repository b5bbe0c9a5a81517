import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { atomEntries, parseAtom } from '../helpers/atom.ts';
import { limitsOff, post, useBoard, visitor } from '../helpers.ts';

/**
 * docs/API.md "Atom feeds": a feed's `updated` and Last-Modified never go back and move on every
 * change to what the feed shows, so a reader that sends only If-Modified-Since never keeps an
 * entry that is gone nor misses a thread that moved up. The board's clock is moved by hand.
 */

describe('Atom feed times', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mod'] });

  /** A GET of the feed: its status, Last-Modified in Unix seconds, <updated> and entry texts. */
  async function read(path: string, since?: number) {
    const headers: Record<string, string> =
      since === undefined ? {} : { 'if-modified-since': new Date(since * 1000).toUTCString() };
    const answer = await visitor(t.board).get(path, headers);
    const lastModified = Date.parse(answer.headers.get('last-modified') ?? '') / 1000;
    if (answer.status !== 200) return { status: answer.status, lastModified, updated: NaN, texts: [] as string[] };
    const updated = Date.parse(/<updated>([^<]+)<\/updated>/.exec(answer.text)![1]!) / 1000;
    return { status: 200, lastModified, updated, texts: atomEntries(parseAtom(answer.text)).map((e) => e.content) };
  }

  test('a moderator removing the newest entry moves every feed that showed it forward: If-Modified-Since gets 200 without it', async () => {
    const { Anna, Bert, Mod } = t.members;
    const thread = await post(Anna, 'Ein Thema für die Zeiten.');
    t.board.clock.advance(10);
    const reply = await post(Bert, 'Die neueste Antwort.', thread);
    t.board.clock.advance(10);
    const newest = await post(Bert, 'Der neueste Beitrag von Bert.');
    t.board.clock.advance(10);
    const paths = ['/feed.atom', '/u/Bert/feed.atom', `/e/${thread}/feed.atom`];
    const before = new Map<string, number>();
    for (const path of paths) {
      const seen = await read(path);
      assert.equal(seen.status, 200);
      before.set(path, seen.lastModified);
      assert.equal((await read(path, seen.lastModified)).status, 304, `${path}: nothing changed yet`);
    }
    t.board.clock.advance(5);
    assert.equal((await Mod.post(`/api/mod/entry/${newest}/remove`, { reason: 'Spam' })).status, 200);
    assert.equal((await Mod.post(`/api/mod/entry/${reply}/remove`, { reason: 'Spam' })).status, 200);
    t.board.clock.advance(1);
    const removedAt = t.board.clock.now() - 1;
    for (const path of paths) {
      const after = await read(path, before.get(path));
      assert.equal(after.status, 200, `${path}: the reader's copy still shows a removed entry`);
      assert.ok(
        !after.texts.includes('Der neueste Beitrag von Bert.') && !after.texts.includes('Die neueste Antwort.'),
        path,
      );
      assert.equal(
        after.lastModified,
        removedAt,
        `${path}: Last-Modified moved forward to the removal, not back to the newest entry left`,
      );
      assert.equal(after.updated, removedAt, `${path}: <updated> too`);
      assert.equal((await read(path, after.lastModified)).status, 304);
    }
  });

  test("a restore and an author's deletion move the feeds too", async () => {
    const { Anna, Mod } = t.members;
    const pid = await post(Anna, 'Kommt und geht.');
    t.board.clock.advance(10);
    assert.equal((await Mod.post(`/api/mod/entry/${pid}/remove`, { reason: 'Versehen' })).status, 200);
    t.board.clock.advance(10);
    const removed = await read('/u/Anna/feed.atom');
    assert.ok(!removed.texts.includes('Kommt und geht.'));
    t.board.clock.advance(10);
    assert.equal((await Mod.post(`/api/mod/entry/${pid}/restore`)).status, 200);
    t.board.clock.advance(1);
    const restored = await read('/u/Anna/feed.atom', removed.lastModified);
    assert.equal(restored.status, 200, 'the restored entry is older than the copy, but the copy lacks it');
    assert.equal(restored.texts[0], 'Kommt und geht.');
    assert.ok(restored.lastModified > removed.lastModified);
    t.board.clock.advance(10);
    assert.equal((await Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    t.board.clock.advance(1);
    const deleted = await read('/u/Anna/feed.atom', restored.lastModified);
    assert.equal(deleted.status, 200);
    assert.ok(!deleted.texts.includes('Kommt und geht.'));
    assert.ok(deleted.lastModified > restored.lastModified);
  });

  /** A newer thread is on top when the reader fetches; then `move` brings the thread `text` up, so the reader's If-Modified-Since must get 200. */
  async function assertMovesUp(text: string, move: () => Promise<unknown>, what: string) {
    t.board.clock.advance(60);
    await post(t.members.Bert, `Neuer als: ${text}`);
    t.board.clock.advance(60);
    const before = await read('/feed.atom');
    assert.notEqual(before.texts[0], text);
    t.board.clock.advance(60);
    await move();
    t.board.clock.advance(1);
    const after = await read('/feed.atom', before.lastModified);
    assert.equal(after.status, 200, `the reader missed the thread that ${what}`);
    assert.equal(after.texts[0], text);
    assert.equal(after.lastModified, t.board.clock.now() - 1);
  }

  test('a reply deep in an old thread, and a bump, bring it to the top of /feed.atom and move Last-Modified', async () => {
    const { Anna, Bert } = t.members;
    let deep = await post(Anna, 'Ein altes Thema, lange still.');
    for (let level = 1; level <= 5; level++) deep = await post(level % 2 ? Bert : Anna, `Ebene ${level}`, deep);
    await assertMovesUp(
      'Ein altes Thema, lange still.',
      () => post(Bert, 'Spät, aber tief unten.', deep),
      'a reply moved up',
    );
    const other = await post(Anna, 'Noch ein Thema, gleich wieder alt.');
    await assertMovesUp(
      'Noch ein Thema, gleich wieder alt.',
      async () => assert.equal((await Bert.post(`/api/entry/${other}/bump`)).status, 200),
      'a bump moved up',
    );
  });

  test('Last-Modified is never the current second: a change later in that second still answers 200 to If-Modified-Since', async () => {
    t.board.clock.advance(60);
    await post(t.members.Anna, 'Erste in dieser Sekunde.');
    const first = await read('/feed.atom');
    assert.equal(first.lastModified, t.board.clock.now() - 1, 'the second of the change is not over yet');
    await post(t.members.Anna, 'Zweite in derselben Sekunde.');
    const second = await read('/feed.atom', first.lastModified);
    assert.equal(second.status, 200);
    assert.equal(second.texts[0], 'Zweite in derselben Sekunde.');
    t.board.clock.advance(1);
    const settled = await read('/feed.atom', second.lastModified);
    assert.equal(settled.status, 200, 'the copy may miss a change of its second: fetched once more');
    assert.equal(settled.lastModified, t.board.clock.now() - 1);
    assert.equal((await read('/feed.atom', settled.lastModified)).status, 304);
  });

  test("the private feed moves when a notification's entry is removed and when its owner mutes someone", async () => {
    const { Anna, Bert, Mod } = t.members;
    const own = await post(Anna, 'Anna fragt etwas.');
    const answer = await post(Bert, 'Bert antwortet Anna.', own);
    const { url } = (await Anna.post('/api/user/feed-token')).body as { url: string };
    const path = new URL(url).pathname;
    t.board.clock.advance(10);
    const before = await read(path);
    assert.equal(before.texts[0], 'Bert antwortet Anna.');
    t.board.clock.advance(10);
    assert.equal((await Mod.post(`/api/mod/entry/${answer}/remove`, { reason: 'Spam' })).status, 200);
    t.board.clock.advance(1);
    const removed = await read(path, before.lastModified);
    assert.equal(removed.status, 200);
    assert.ok(!removed.texts.includes('Bert antwortet Anna.'));
    await post(Bert, 'Bert antwortet noch einmal.', own);
    t.board.clock.advance(10);
    const again = await read(path);
    assert.equal(again.texts[0], 'Bert antwortet noch einmal.');
    t.board.clock.advance(10);
    assert.equal((await Anna.post('/api/user/mute', { user: 'Bert' })).status, 200);
    t.board.clock.advance(1);
    const muted = await read(path, again.lastModified);
    assert.equal(muted.status, 200);
    assert.ok(!muted.texts.includes('Bert antwortet noch einmal.'));
  });

  test('a rename moves every feed that shows the name', async () => {
    const { Bert } = t.members;
    await post(Bert, 'Bert schreibt noch etwas.');
    t.board.clock.advance(10);
    const before = await read('/feed.atom');
    t.board.clock.advance(10);
    assert.equal((await Bert.post('/api/user/rename', { user: 'Bert Neu' })).status, 200);
    t.board.clock.advance(1);
    const after = await read('/feed.atom', before.lastModified);
    assert.equal(after.status, 200);
    assert.ok(after.lastModified > before.lastModified);
  });
});
