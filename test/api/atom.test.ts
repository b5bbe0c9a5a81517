import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, imageFixture, limitsOff, post, useBoard, visitor, type Client } from '../helpers.ts';
import { atomEntries, impressionsSoFar, parseAtom } from '../helpers/atom.ts';

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
    const withImage = await Anna.postMultipart('/api/entry/create', { content: 'Mit Bild' }, [
      { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    assert.equal(withImage.status, 201, withImage.text);
    pids.image = withImage.body.pid;
    t.board.clock.advance(10);
    pids.reply = await post(t.members['Bert Otto'], 'Antwort belebt das alte Thema.', pids.old);
    const origin = t.board.config.origin;
    const { entries } = await feed(visitor(t.board), '/feed.atom');
    assert.deepEqual(
      entries.map((e) => e.id),
      [pids.old, pids.image, pids.tricky].map((pid) => `${origin}/e/${pid}`),
    );
    assert.deepEqual(
      entries.map((e) => e.link),
      entries.map((e) => e.id),
    );
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
    assert.deepEqual(
      thread.entries.map((e) => e.content),
      ['Antwort belebt das alte Thema.', 'Ein altes Thema.'],
    );
    const user = await feed(visitor(t.board), '/u/bert%20otto/feed.atom');
    assert.deepEqual(
      user.entries.map((e) => e.content),
      ['Antwort belebt das alte Thema.', trickyText],
    );
    assert.deepEqual(
      (await feed(visitor(t.board), `/u/Anna/feed.atom`)).entries.map((e) => e.content),
      ['Mit Bild', 'Ein altes Thema.'],
    );
    for (const path of [
      `/e/${gone}/feed.atom`,
      `/e/${removed}/feed.atom`,
      '/e/999999/feed.atom',
      '/e/abc/feed.atom',
      '/u/Niemand/feed.atom',
    ]) {
      const missing = await visitor(t.board).get(path);
      assert.equal(missing.status, 404, path);
      assertDocumented(missing);
    }
    const top = await post(Anna, 'Thema, das verschwindet.');
    assert.equal((await Anna.post(`/api/entry/${top}/delete`)).status, 200);
    assert.ok(!(await feed(visitor(t.board), '/feed.atom')).entries.some((e) => e.id.endsWith(`/e/${top}`)));
  });

  test("/e/{pid}/feed.atom: the whole subtree newest first, replies to replies included, titled like the entry's page", async () => {
    const { Anna } = t.members;
    const bert = t.members['Bert Otto'];
    const opening = await post(
      Anna,
      'Worum geht es hier eigentlich? Ein Thema mit einer langen Einleitung,\n die länger als sechzig Zeichen ist.',
    );
    t.board.clock.advance(10);
    const second = await post(bert, 'Direkte Antwort.', opening);
    t.board.clock.advance(10);
    const fourth = await post(Anna, 'Antwort auf die Antwort.', second);
    t.board.clock.advance(10);
    await post(bert, 'Noch eine direkte Antwort.', opening);
    t.board.clock.advance(10);
    let deep = fourth;
    for (let level = 1; level <= 3; level++) {
      deep = await post(level % 2 ? bert : Anna, `Ganz unten ${level}.`, deep);
      t.board.clock.advance(10);
    }
    const gone = await post(bert, 'Entfernt, also nicht im Feed.', deep);
    assert.equal((await t.members.Mod.post(`/api/mod/entry/${gone}/remove`, { reason: 'Spam' })).status, 200);
    const { answer, entries } = await feed(visitor(t.board), `/e/${opening}/feed.atom`);
    assert.deepEqual(
      entries.map((e) => e.content),
      [
        'Ganz unten 3.',
        'Ganz unten 2.',
        'Ganz unten 1.',
        'Noch eine direkte Antwort.',
        'Antwort auf die Antwort.',
        'Direkte Antwort.',
        'Worum geht es hier eigentlich? Ein Thema mit einer langen Einleitung,\n die länger als sechzig Zeichen ist.',
      ],
    );
    const title = /<feed[^>]*>[\s\S]*?<title type="text">([^<]*)<\/title>/.exec(answer.text)![1];
    assert.equal(title, 'Worum geht es hier eigentlich? Ein Thema mit einer langen … – Anna – Das Board');
    const branch = await feed(visitor(t.board), `/e/${second}/feed.atom`);
    assert.deepEqual(
      branch.entries.map((e) => e.content),
      ['Ganz unten 3.', 'Ganz unten 2.', 'Ganz unten 1.', 'Antwort auf die Antwort.', 'Direkte Antwort.'],
    );
    assert.match(branch.answer.text, /<title type="text">Direkte Antwort\. – Bert Otto – Das Board<\/title>/);
  });

  test('/e/{pid}/feed.atom holds at most the 50 newest, however deep; an edit of the opening text moves its title', async () => {
    const { Anna } = t.members;
    const top = await post(Anna, 'Eine lange Kette.');
    let parent = top;
    for (let level = 1; level <= 60; level++) parent = await post(Anna, `Glied ${level}`, parent);
    const { entries } = await feed(visitor(t.board), `/e/${top}/feed.atom`);
    assert.equal(entries.length, 50);
    assert.deepEqual(
      entries.map((e) => e.content),
      Array.from({ length: 50 }, (_, i) => `Glied ${60 - i}`),
    );
    t.board.clock.advance(10);
    assert.equal((await Anna.post(`/api/entry/${top}/edit`, { content: 'Eine sehr lange Kette.' })).status, 200);
    const editedAt = t.board.clock.now();
    t.board.clock.advance(1);
    const edited = await visitor(t.board).get(`/e/${top}/feed.atom`);
    assert.match(edited.text, /<title type="text">Eine sehr lange Kette\. – Anna – Das Board<\/title>/);
    assert.equal(
      Date.parse(edited.headers.get('last-modified')!) / 1000,
      editedAt,
      'the edit, though the opening entry is not among the 50',
    );
  });

  test('ETag with If-None-Match and Last-Modified with If-Modified-Since answer 304; a write changes the feed', async () => {
    // The second of the last write must be over before Last-Modified can name it (test/api/atom-updated.test.ts).
    t.board.clock.advance(1);
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
    assert.equal(
      (await visitor(t.board).get('/feed.atom', { 'if-none-match': '"anders"', 'if-modified-since': lastModified }))
        .status,
      200,
      'If-None-Match wins',
    );
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
