import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, imageFixture, limitsOff, post, useBoard, visitor, type Client } from '../helpers.ts';
import { atomEntries, impressionsSoFar, parseAtom } from '../atom-helpers.ts';

/** docs/API.md "Atom feeds": valid Atom 1.0, what each feed holds, escaping, 404s and conditional requests. */

async function feed(client: Client, path: string) {
  const answer = await client.get(path);
  assert.equal(answer.status, 200, `${path}: ${answer.status} ${answer.text}`);
  assert.equal(answer.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  assertDocumented(answer);
  return { answer, entries: atomEntries(parseAtom(answer.text)) };
}

const tricky = `Kurz & <script>alert("x")</script> 'zitiert' \u202Eumgedreht\u202C \u0001 Ende`;

describe('Atom feeds', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert Otto'], moderators: ['Mod'] });
  const pids: Record<string, number> = {};
  let trickyText = '';

  test('/feed.atom: the newest threads by last activity, each linking to /e/{pid}, text escaped, images as enclosures', async () => {
    const { Anna } = t.members;
    pids.old = await post(Anna, 'Ein altes Thema.');
    t.board.clock.advance(10);
    pids.tricky = await post(t.members['Bert Otto'], tricky);
    t.board.clock.advance(10);
    const withImage = await Anna.postMultipart('/api/entry/create', { content: 'Mit Bild' }, [{ name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) }]);
    assert.equal(withImage.status, 201, withImage.text);
    pids.image = withImage.body.pid;
    t.board.clock.advance(10);
    pids.reply = await post(t.members['Bert Otto'], 'Antwort belebt das alte Thema.', pids.old);
    const origin = t.board.config.origin;
    const { entries } = await feed(visitor(t.board), '/feed.atom');
    assert.deepEqual(entries.map((e) => e.id), [pids.old, pids.image, pids.tricky].map((pid) => `${origin}/e/${pid}`));
    assert.deepEqual(entries.map((e) => e.link), entries.map((e) => e.id));
    const trickyEntry = entries.find((e) => e.id.endsWith(`/e/${pids.tricky}`))!;
    trickyText = (await visitor(t.board).get(`/api/entry/${pids.tricky}/thread`)).body.entry.content;
    assert.match(trickyText, /<script>alert\("x"\)<\/script> 'zitiert'/);
    assert.equal(trickyEntry.content, trickyText, 'the text as stored round-trips through the XML escaping');
    assert.equal(trickyEntry.author, 'Bert Otto');
    const image = entries.find((e) => e.id.endsWith(`/e/${pids.image}`))!;
    assert.match(image.enclosure!.href, new RegExp(`^${origin}/static/media/e/`));
    assert.equal(image.enclosure!.type, 'image/png');
    assert.equal((await visitor(t.board).get(image.enclosure!.href.slice(origin.length))).status, 200);
  });

  test('/e/{pid}/feed.atom and /u/{username}/feed.atom; deleted and removed entries left out', async () => {
    const { Anna, Mod } = t.members;
    const bert = t.members['Bert Otto'];
    const gone = await post(bert, 'Wird gelöscht.', pids.old);
    const removed = await post(bert, 'Wird entfernt.', pids.old);
    assert.equal((await bert.post(`/api/entry/${gone}/delete`)).status, 200);
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/remove`, { reason: 'Spam' })).status, 200);
    const thread = await feed(visitor(t.board), `/e/${pids.old}/feed.atom`);
    assert.deepEqual(thread.entries.map((e) => e.content), ['Antwort belebt das alte Thema.', 'Ein altes Thema.']);
    const user = await feed(visitor(t.board), '/u/bert%20otto/feed.atom');
    assert.deepEqual(user.entries.map((e) => e.content), ['Antwort belebt das alte Thema.', trickyText]);
    assert.deepEqual((await feed(visitor(t.board), `/u/Anna/feed.atom`)).entries.map((e) => e.content), ['Mit Bild', 'Ein altes Thema.']);
    for (const path of [`/e/${gone}/feed.atom`, `/e/${removed}/feed.atom`, '/e/999999/feed.atom', '/e/abc/feed.atom', '/u/Niemand/feed.atom']) {
      const missing = await visitor(t.board).get(path);
      assert.equal(missing.status, 404, path);
      assertDocumented(missing);
    }
    const top = await post(Anna, 'Thema, das verschwindet.');
    assert.equal((await Anna.post(`/api/entry/${top}/delete`)).status, 200);
    assert.ok(!(await feed(visitor(t.board), '/feed.atom')).entries.some((e) => e.id.endsWith(`/e/${top}`)));
  });

  test('ETag with If-None-Match and Last-Modified with If-Modified-Since answer 304; a write changes the feed', async () => {
    const first = await visitor(t.board).get('/feed.atom');
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    assert.match(etag, /^"[\w-]+"$/);
    assert.ok(lastModified);
    const byTag = await visitor(t.board).get('/feed.atom', { 'if-none-match': etag });
    assert.equal(byTag.status, 304);
    assert.equal(byTag.text, '');
    assertDocumented(byTag);
    assert.equal((await visitor(t.board).get('/feed.atom', { 'if-none-match': `"anders", W/${etag}` })).status, 304);
    assert.equal((await visitor(t.board).get('/feed.atom', { 'if-modified-since': lastModified })).status, 304);
    assert.equal((await visitor(t.board).get('/feed.atom', { 'if-none-match': '"anders"', 'if-modified-since': lastModified })).status, 200, 'If-None-Match wins');
    t.board.clock.advance(60);
    await post(t.members.Anna, 'Etwas Neues.');
    const after = await visitor(t.board).get('/feed.atom', { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    assert.equal((await visitor(t.board).get('/feed.atom', { 'if-modified-since': lastModified })).status, 200);
    assert.equal(atomEntries(parseAtom(after.text))[0]!.content, 'Etwas Neues.');
  });

  test('a rename shows in the cached feed at once; feeds count no impressions', async () => {
    const before = impressionsSoFar(t.board);
    await visitor(t.board).get('/feed.atom');
    const renamed = await t.members.Anna.post('/api/user/rename', { user: 'Anna Neu' });
    assert.equal(renamed.status, 200, renamed.text);
    const { entries } = await feed(visitor(t.board), '/feed.atom');
    assert.equal(entries[0]!.author, 'Anna Neu');
    await feed(visitor(t.board), `/e/${pids.old}/feed.atom`);
    await feed(visitor(t.board), '/u/Anna%20Neu/feed.atom');
    assert.equal(impressionsSoFar(t.board), before);
  });
});
