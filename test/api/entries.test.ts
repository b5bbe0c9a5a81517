import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  entryCount,
  entryRow,
  imageFixture,
  limitsOff,
  mediaFiles,
  member,
  post,
  uidOf,
  useBoard,
  visitor,
  type Answer,
  type Client,
  emptyFolder,
} from '../helpers.ts';
import { entryFields } from '../helpers/entries.ts';

function createWithImage(client: Client, content: string, data: Buffer, replyTo = 0): Promise<Answer> {
  const fields = replyTo ? { content, reply_to: replyTo } : { content };
  return client.postMultipart('/api/entry/create', fields, [
    { name: 'file', filename: 'bild.jpg', type: 'image/jpeg', data },
  ]);
}

describe('creating an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  test('answers 201 with pid, content, filepath and reply_to, and stores the entry with its author and time', async () => {
    const answer = await t.members.Anna.post('/api/entry/create', { content: 'Guten Morgen' });
    assert.equal(answer.status, 201, answer.text);
    assertDocumented(answer);
    assert.deepEqual(Object.keys(answer.body).sort(), ['content', 'filepath', 'pid', 'reply_to']);
    assert.equal(answer.body.content, 'Guten Morgen');
    assert.equal(answer.body.filepath, '');
    assert.equal(answer.body.reply_to, 0);
    assert.ok(Number.isInteger(answer.body.pid) && answer.body.pid > 0);
    const row = entryRow(t.board, answer.body.pid)!;
    assert.equal(row.uid, uidOf(t.board, 'Anna'));
    assert.equal(row.content, 'Guten Morgen');
    assert.equal(row.created_at, t.board.clock.now());
    assert.equal(row.last_activity, t.board.clock.now());
    assert.equal(row.deleted, 0);
    assert.equal(row.bump_count, 0);
    assert.equal(row.last_bump, 0);
    assert.equal(row.reply_count, 0);
  });

  test('the thread shows the new entry with every Entry field', async () => {
    const pid = await post(t.members.Anna, 'Felder');
    const thread = await visitor(t.board).get(`/api/entry/${pid}/thread`);
    assert.equal(thread.status, 200);
    assertDocumented(thread);
    assert.deepEqual(Object.keys(thread.body.entry).sort(), entryFields);
    assert.equal(thread.body.entry.username, 'Anna');
    assert.equal(thread.body.entry.uid, uidOf(t.board, 'Anna'));
    assert.deepEqual(thread.body.ancestors, []);
    assert.deepEqual(thread.body.replies, []);
  });

  test("entries show their author's current avatar", async () => {
    const pid = await post(t.members.Anna, 'mit Gesicht');
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.avatar, '');
    const changed = await t.members.Anna.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'ich.jpg', type: 'image/jpeg', data: await imageFixture() },
    ]);
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.avatar, changed.body.avatar);
    const feed = (await visitor(t.board).get('/api/entry/feed/0')).body;
    assert.equal(feed.find((e: { pid: number }) => e.pid === pid).avatar, changed.body.avatar);
  });

  test('no content and no file answers 400 entry.empty, also for content of only whitespace', async () => {
    const before = entryCount(t.board);
    for (const fields of [{}, { content: '' }, { content: '   ' }, { content: ' \n\t \r\n ' }]) {
      const answer = await t.members.Anna.post('/api/entry/create', fields);
      assertError(answer, 400, 'entry.empty');
    }
    assertError(await t.members.Anna.post('/api/entry/create'), 400, 'entry.empty');
    assert.equal(entryCount(t.board), before);
  });

  test('1001 code points answer 400 entry.too_long; 1000 emoji (2000 UTF-16 units) are accepted', async () => {
    const before = entryCount(t.board);
    assertError(
      await t.members.Anna.post('/api/entry/create', { content: 'a'.repeat(1001) }),
      400,
      'entry.too_long',
      'content',
    );
    assertError(
      await t.members.Anna.post('/api/entry/create', { content: '😀'.repeat(1001) }),
      400,
      'entry.too_long',
      'content',
    );
    assert.equal(entryCount(t.board), before);

    const emoji = '😀'.repeat(1000);
    const answer = await t.members.Anna.post('/api/entry/create', { content: emoji });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(entryRow(t.board, answer.body.pid)!.content, emoji);
    const exact = await t.members.Anna.post('/api/entry/create', { content: 'ä'.repeat(1000) });
    assert.equal(exact.status, 201, exact.text);
  });

  test('bidi controls (U+202A–202E, U+2066–2069) are dropped from the text on create and edit, so a link cannot read as another', async () => {
    const spoof =
      'Rechnung \u202ehttps://example.org/fdp.exe\u202c und \u2066isoliert\u2069, \u202a\u202b\u202d fertig';
    const answer = await t.members.Anna.post('/api/entry/create', { content: spoof });
    assert.equal(answer.status, 201, answer.text);
    const clean = 'Rechnung https://example.org/fdp.exe und isoliert,  fertig';
    assert.equal(answer.body.content, clean);
    assert.equal(entryRow(t.board, answer.body.pid)!.content, clean);
    assert.equal(
      (await t.members.Anna.post(`/api/entry/${answer.body.pid}/edit`, { content: `neu \u202e${clean}` })).body.content,
      `neu ${clean}`,
    );
    assert.equal(
      (await visitor(t.board).post(`/api/entry/${answer.body.pid}/report`, { reason: '\u202eSpam\u2069' })).status,
      200,
    );
    assert.equal(
      t.board.app.services.db.one<{ reason: string }>('SELECT reason FROM reports WHERE pid = ?', answer.body.pid)!
        .reason,
      'Spam',
    );
  });

  test('reply_to absent, empty or 0 makes a top-level entry', async () => {
    for (const fields of [{ content: 'ohne' }, { content: 'leer', reply_to: '' }, { content: 'null', reply_to: '0' }]) {
      const answer = await t.members.Anna.post('/api/entry/create', fields);
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.body.reply_to, 0);
      assert.equal(entryRow(t.board, answer.body.pid)!.reply_to, 0);
    }
  });

  test('a reply_to that is not a whole number answers 400 input.invalid naming reply_to', async () => {
    const before = entryCount(t.board);
    for (const replyTo of ['abc', '1.5', '-3', '0x10', '1e3', ' ']) {
      const answer = await t.members.Anna.post('/api/entry/create', { content: 'Antwort', reply_to: replyTo });
      assertError(answer, 400, 'input.invalid', 'reply_to');
    }
    assert.equal(entryCount(t.board), before);
  });

  test("a reply is stored under its parent and raises the parent's reply_count", async () => {
    const parent = await post(t.members.Anna, 'Frage');
    const answer = await t.members.Anna.post('/api/entry/create', { content: 'Antwort', reply_to: parent });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.reply_to, parent);
    assert.equal(entryRow(t.board, answer.body.pid)!.reply_to, parent);
    assert.equal(entryRow(t.board, parent)!.reply_count, 1);
  });

  test('a reply to an unknown or deleted entry answers 404 entry.not_found and stores nothing', async () => {
    const gone = await post(t.members.Anna, 'bald weg');
    assert.equal((await t.members.Anna.post(`/api/entry/${gone}/delete`)).status, 200);
    const before = entryCount(t.board);
    assertError(
      await t.members.Anna.post('/api/entry/create', { content: 'hallo?', reply_to: 987654 }),
      404,
      'entry.not_found',
    );
    assertError(
      await t.members.Anna.post('/api/entry/create', { content: 'hallo?', reply_to: gone }),
      404,
      'entry.not_found',
    );
    assert.equal(entryCount(t.board), before);
    assert.equal(entryRow(t.board, gone)!.reply_count, 0);
  });

  test('urlencoded and multipart bodies both create entries (multipart also without a file)', async () => {
    const parent = await post(t.members.Anna, 'Eltern');
    const urlencoded = await t.members.Anna.post('/api/entry/create', { content: 'per Formular', reply_to: parent });
    assert.equal(urlencoded.status, 201, urlencoded.text);
    const multipart = await t.members.Anna.postMultipart('/api/entry/create', {
      content: 'per multipart',
      reply_to: parent,
    });
    assert.equal(multipart.status, 201, multipart.text);
    assert.equal(multipart.body.reply_to, parent);
    assert.equal(entryRow(t.board, multipart.body.pid)!.content, 'per multipart');
    assert.equal(entryRow(t.board, parent)!.reply_count, 2);
  });

  test('without a session answers 401 auth.required and stores nothing', async () => {
    const before = entryCount(t.board);
    assertError(await visitor(t.board).post('/api/entry/create', { content: 'anonym' }), 401, 'auth.required');
    assert.equal(entryCount(t.board), before);
  });
});

describe('editing an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('the author edits: 200 {pid, content} and the thread shows the new text', async () => {
    const pid = await post(t.members.Anna, 'erste Fassung');
    const reply = await post(t.members.Bert, 'Antwort', pid);
    // Read first, so a page kept from before the edit would show.
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.content, 'erste Fassung');
    assert.equal((await visitor(t.board).get(`/api/entry/${reply}/thread`)).body.ancestors[0].content, 'erste Fassung');
    assert.equal((await visitor(t.board).get('/api/entry/feed/0')).body[0].content, 'erste Fassung');

    const answer = await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'zweite Fassung' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { pid, content: 'zweite Fassung' });
    assert.equal(entryRow(t.board, pid)!.content, 'zweite Fassung');
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.content, 'zweite Fassung');
    assert.equal(
      (await visitor(t.board).get(`/api/entry/${reply}/thread`)).body.ancestors[0].content,
      'zweite Fassung',
    );
    assert.equal((await visitor(t.board).get('/api/entry/feed/0')).body[0].content, 'zweite Fassung');
  });

  test('an edit does not move last_activity', async () => {
    const pid = await post(t.members.Anna, 'ruhig');
    const before = entryRow(t.board, pid)!.last_activity;
    t.board.clock.advance(100);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'immer noch ruhig' })).status, 200);
    assert.equal(entryRow(t.board, pid)!.last_activity, before);
  });

  test('someone else answers 403 entry.not_author and the text stays', async () => {
    const pid = await post(t.members.Anna, 'meins');
    assertError(
      await t.members.Bert.post(`/api/entry/${pid}/edit`, { content: 'jetzt meins' }),
      403,
      'entry.not_author',
    );
    assert.equal(entryRow(t.board, pid)!.content, 'meins');
  });

  test('a deleted or unknown entry answers 404 entry.not_found', async () => {
    const pid = await post(t.members.Anna, 'weg damit');
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assertError(await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'doch nicht' }), 404, 'entry.not_found');
    assertError(await t.members.Anna.post('/api/entry/987654/edit', { content: 'wer?' }), 404, 'entry.not_found');
    assert.equal(entryRow(t.board, pid)!.content, '');
  });

  test('the length is checked again: 1001 code points answer 400 entry.too_long and the text stays', async () => {
    const pid = await post(t.members.Anna, 'kurz');
    assertError(
      await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'x'.repeat(1001) }),
      400,
      'entry.too_long',
      'content',
    );
    assert.equal(entryRow(t.board, pid)!.content, 'kurz');
    const answer = await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: '🙂'.repeat(1000) });
    assert.equal(answer.status, 200, answer.text);
  });

  test('editing to empty text answers 400 entry.empty, unless the entry has an image', async () => {
    const textOnly = await post(t.members.Anna, 'nur Text');
    assertError(await t.members.Anna.post(`/api/entry/${textOnly}/edit`, { content: '  ' }), 400, 'entry.empty');
    assertError(await t.members.Anna.post(`/api/entry/${textOnly}/edit`), 400, 'entry.empty');
    assert.equal(entryRow(t.board, textOnly)!.content, 'nur Text');

    const withImage = await createWithImage(t.members.Anna, 'Bild mit Text', await imageFixture());
    assert.equal(withImage.status, 201, withImage.text);
    const answer = await t.members.Anna.post(`/api/entry/${withImage.body.pid}/edit`, { content: '' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { pid: withImage.body.pid, content: '' });
    assert.equal(entryRow(t.board, withImage.body.pid)!.filepath, withImage.body.filepath);
  });

  test('without a session answers 401 auth.required', async () => {
    const pid = await post(t.members.Anna, 'sicher');
    assertError(await visitor(t.board).post(`/api/entry/${pid}/edit`, { content: 'anonym' }), 401, 'auth.required');
  });
});

describe('deleting an entry', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('is soft: 200 {status:"deleted"}, text and file blanked, author kept, and the thread remains', async () => {
    const root = await post(t.members.Bert, 'Wurzel');
    const created = await createWithImage(t.members.Anna, 'mittendrin', await imageFixture(), root);
    assert.equal(created.status, 201, created.text);
    const middle = created.body.pid as number;
    assert.notEqual(created.body.filepath, '');
    assert.ok(existsSync(join(t.board.config.mediaDir, created.body.filepath)));
    const below = await post(t.members.Bert, 'Antwort unten', middle);
    // Read first, so a page kept from before the delete would show.
    assert.equal((await visitor(t.board).get(`/api/entry/${middle}/thread`)).body.entry.content, 'mittendrin');
    assert.equal((await visitor(t.board).get(`/api/entry/${root}/thread`)).body.replies[0].content, 'mittendrin');

    const answer = await t.members.Anna.post(`/api/entry/${middle}/delete`);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'deleted' });

    const row = entryRow(t.board, middle)!;
    assert.equal(row.deleted, 1);
    assert.equal(row.content, '');
    assert.equal(row.filepath, '');
    assert.equal(row.uid, uidOf(t.board, 'Anna'));
    assert.equal(existsSync(join(t.board.config.mediaDir, created.body.filepath)), false, 'the image file is removed');
    assert.deepEqual(mediaFiles(t.board), []);

    const rootThread = await visitor(t.board).get(`/api/entry/${root}/thread`);
    assert.deepEqual(
      rootThread.body.replies.map((r: { pid: number }) => r.pid),
      [middle],
      'the deleted entry keeps its place',
    );
    const thread = await visitor(t.board).get(`/api/entry/${middle}/thread`);
    assert.equal(thread.status, 200, 'the thread of a deleted entry is still there');
    assert.equal(thread.body.entry.deleted, 1);
    assert.equal(thread.body.entry.content, '');
    assert.equal(thread.body.entry.filepath, '');
    assert.equal(thread.body.entry.username, 'Anna');
    assert.equal(thread.body.entry.uid, uidOf(t.board, 'Anna'));
    assert.deepEqual(
      thread.body.replies.map((r: { pid: number }) => r.pid),
      [below],
    );
    assert.equal(thread.body.replies[0].content, 'Antwort unten');
  });

  test("a deleted reply keeps its place in its parent's thread, shown blank with its author", async () => {
    const root = await post(t.members.Bert, 'Wurzel');
    const reply = await post(t.members.Anna, 'Antwort', root);
    assert.equal((await t.members.Anna.post(`/api/entry/${reply}/delete`)).status, 200);
    const thread = await visitor(t.board).get(`/api/entry/${root}/thread`);
    assert.equal(thread.status, 200);
    assert.equal(thread.body.replies.length, 1);
    assert.equal(thread.body.replies[0].pid, reply);
    assert.equal(thread.body.replies[0].deleted, 1);
    assert.equal(thread.body.replies[0].content, '');
    assert.equal(thread.body.replies[0].username, 'Anna');
    assert.equal(entryRow(t.board, root)!.reply_count, 1, 'reply_count counts deleted replies');
  });

  test('someone else answers 403 entry.not_author and nothing changes', async () => {
    const pid = await post(t.members.Anna, 'bleibt');
    assertError(await t.members.Bert.post(`/api/entry/${pid}/delete`), 403, 'entry.not_author');
    assert.equal(entryRow(t.board, pid)!.deleted, 0);
    assert.equal(entryRow(t.board, pid)!.content, 'bleibt');
  });

  test('a second delete answers 404 entry.not_found', async () => {
    const pid = await post(t.members.Anna, 'einmal');
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assertError(await t.members.Anna.post(`/api/entry/${pid}/delete`), 404, 'entry.not_found');
    assertError(await t.members.Anna.post('/api/entry/987654/delete'), 404, 'entry.not_found');
  });

  test('report, vote, bump and edit on a deleted entry answer 404; its votes and thread answer 200', async () => {
    const pid = await post(t.members.Anna, 'gleich weg');
    assert.equal((await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' })).status, 200);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);

    assertError(await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'Spam' }), 404, 'entry.not_found');
    assertError(await t.members.Bert.post(`/api/entry/${pid}/report`), 404, 'entry.not_found');
    assertError(await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'no' }), 404, 'entry.not_found');
    assertError(await t.members.Bert.post(`/api/entry/${pid}/bump`), 404, 'entry.not_found');
    assertError(await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'zurück' }), 404, 'entry.not_found');
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM reports WHERE pid = ?', pid), 0);

    const votes = await t.members.Bert.get(`/api/entry/${pid}/votes`);
    assert.equal(votes.status, 200);
    assert.deepEqual(votes.body, { pid, yes: 1, no: 0, selected: 'yes' });
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).status, 200);
  });

  test('without a session answers 401 auth.required', async () => {
    const pid = await post(t.members.Anna, 'sicher');
    assertError(await visitor(t.board).post(`/api/entry/${pid}/delete`), 401, 'auth.required');
    assert.equal(entryRow(t.board, pid)!.deleted, 0);
  });
});

describe('thread and path parameters', () => {
  const t = useBoard({ env: limitsOff });

  test('the thread of an unknown entry answers 404 entry.not_found', async () => {
    assertError(await visitor(t.board).get('/api/entry/987654/thread'), 404, 'entry.not_found');
  });

  test('a pid that is not a whole number answers 400 input.invalid naming pid', async () => {
    const client = await member(t.board, 'Pfad');
    assertError(await visitor(t.board).get('/api/entry/abc/thread'), 400, 'input.invalid', 'pid');
    assertError(await visitor(t.board).get('/api/entry/-1/votes'), 400, 'input.invalid', 'pid');
    assertError(await client.post('/api/entry/1.5/edit', { content: 'x' }), 400, 'input.invalid', 'pid');
  });
});

describe('posting from a Tor exit', () => {
  const torAddress = '203.0.113.77';
  let dir: string;
  let exitsFile: string;
  const t = useBoard({
    prepare: () => {
      dir = emptyFolder('board-tor-');
      exitsFile = join(dir, 'exits.txt');
      // Written before the board starts: the list is read at start, and here rechecked on every
      // lookup instead of at most every 2 s, so a changed file counts at once without a sleep.
      writeFileSync(exitsFile, `# exit list\n${torAddress}\n2001:db8::77\n`);
    },
    env: () => ({ ...limitsOff, BOARD_TOR_EXITS: exitsFile }),
    start: { tor: { recheckMs: 0 } },
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('create answers 403 tor.blocked and stores nothing, not even an uploaded file', async () => {
    const tor = await member(t.board, 'Tor Nutzer', torAddress);
    const before = entryCount(t.board);
    assertError(await tor.post('/api/entry/create', { content: 'über Tor' }), 403, 'tor.blocked');
    const withFile = await createWithImage(tor, 'mit Bild', await imageFixture());
    assertError(withFile, 403, 'tor.blocked');
    assert.equal(entryCount(t.board), before);
    assert.deepEqual(mediaFiles(t.board), []);
  });

  test('edit answers 403 tor.blocked too (after a malformed pid, before the body), and the text stays', async () => {
    const tor = await member(t.board, 'Tor Editor', torAddress);
    const pid = await post(await member(t.board, 'Tor Editor Zuhause'), 'harmlos');
    t.board.app.services.db.run(
      "UPDATE entries SET uid = (SELECT uid FROM users WHERE username = 'Tor Editor') WHERE pid = ?",
      pid,
    );
    assertError(await tor.post(`/api/entry/${pid}/edit`, { content: 'jetzt Spam' }), 403, 'tor.blocked');
    assertError(await tor.post('/api/entry/abc/edit', { content: 'x' }), 400, 'input.invalid', 'pid');
    assert.equal(entryRow(t.board, pid)!.content, 'harmlos');
  });

  test('an IPv6 exit written in another spelling is blocked too', async () => {
    const tor = await member(t.board, 'Tor Sechs', '2001:0db8:0000:0000:0000:0000:0000:0077');
    assertError(await tor.post('/api/entry/create', { content: 'über Tor' }), 403, 'tor.blocked');
  });

  test('other addresses post as usual, and a Tor user can still read', async () => {
    const other = await member(t.board, 'Normal');
    const pid = await post(other, 'ganz normal');
    const tor = t.board.client({ ip: torAddress });
    const feed = await tor.get('/api/entry/feed/0');
    assert.equal(feed.status, 200);
    assert.ok(feed.body.some((e: { pid: number }) => e.pid === pid));
    assert.equal((await tor.get(`/api/entry/${pid}/thread`)).status, 200);
    assert.equal((await tor.get(`/api/entry/${pid}/votes`)).status, 200);
  });

  test('a changed exit file takes effect without a restart', async () => {
    const newExit = '198.51.100.9';
    const client = await member(t.board, 'Bald Tor', newExit);
    await post(client, 'noch erlaubt');
    writeFileSync(exitsFile, `${torAddress}\n${newExit}\n`);
    assertError(await client.post('/api/entry/create', { content: 'jetzt nicht mehr' }), 403, 'tor.blocked');
  });
});

describe('order of checks (docs/API.md "Order of checks")', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('a session comes before a malformed path parameter: 401, not 400', async () => {
    assertError(await visitor(t.board).post('/api/entry/abc/edit', { content: 'x' }), 401, 'auth.required');
  });

  test('a body that is not a form answers 415 before the entry is looked up', async () => {
    const answer = await t.members.Anna.send('POST', '/api/entry/987654/vote', 'mode=yes', {
      'content-type': 'text/plain',
    });
    assertError(answer, 415, 'input.unsupported_type');
  });

  test('existence comes before permission and validation: 404', async () => {
    const pid = await post(t.members.Anna, 'gleich weg');
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assertError(
      await t.members.Bert.post(`/api/entry/${pid}/edit`, { content: 'x'.repeat(1001) }),
      404,
      'entry.not_found',
    );
    assertError(await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'vielleicht' }), 404, 'entry.not_found');
    assertError(
      await t.members.Bert.post(`/api/entry/${pid}/report`, { reason: 'x'.repeat(501) }),
      404,
      'entry.not_found',
    );
    assertError(
      await t.members.Bert.post('/api/entry/create', { content: 'x'.repeat(1001), reply_to: pid }),
      404,
      'entry.not_found',
    );
  });

  test('permission comes before validation: 403', async () => {
    const pid = await post(t.members.Anna, 'meins');
    assertError(
      await t.members.Bert.post(`/api/entry/${pid}/edit`, { content: 'x'.repeat(1001) }),
      403,
      'entry.not_author',
    );
    assertError(await t.members.Bert.post(`/api/entry/${pid}/edit`, { content: '' }), 403, 'entry.not_author');
  });
});
