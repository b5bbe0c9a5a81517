import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  entryRow,
  imageFixture,
  limitsOff,
  post,
  useBoard,
  type Client,
} from '../helpers.ts';

/** docs/API.md "POST /api/entry/create": the author's optional description of the image, `alt`. */
describe('image descriptions (alt)', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mona'] }); // images from fresh accounts
  let image: Buffer;

  before(async () => {
    image = await imageFixture({ background: '#2a6' });
  });

  function createWithImage(client: Client, fields: Record<string, string | undefined>) {
    return client.postMultipart('/api/entry/create', fields, [
      { name: 'file', filename: 'bild.jpg', type: 'image/jpeg', data: image },
    ]);
  }

  async function shown(pid: number): Promise<Record<string, unknown>> {
    const answer = await t.board.client().get(`/api/entry/${pid}/thread`);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer); // the Entry's alt is in the OpenAPI document
    return answer.body.entry;
  }

  test('create stores it, answers it, and every Entry of the image shows it', async () => {
    const answer = await createWithImage(t.members.Anna, { content: 'Mein Garten', alt: 'Ein Beet mit roten Tulpen' });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.alt, 'Ein Beet mit roten Tulpen');
    assertDocumented(answer);
    const { pid } = answer.body;
    assert.equal(entryRow(t.board, pid)!.alt, 'Ein Beet mit roten Tulpen');
    assert.equal((await shown(pid)).alt, 'Ein Beet mit roten Tulpen');
    const feed = await t.board.client().get('/api/entry/feed/0');
    assertDocumented(feed);
    assert.equal(feed.body.find((e: { pid: number }) => e.pid === pid).alt, 'Ein Beet mit roten Tulpen');
    const userFeed = await t.board.client().get('/api/u/Anna/feed/0');
    assertDocumented(userFeed);
    assert.equal(userFeed.body.find((e: { pid: number }) => e.pid === pid).alt, 'Ein Beet mit roten Tulpen');
  });

  test('without a description (absent or blank) the Entry has no alt field at all', async () => {
    for (const alt of [undefined, '', '  \n ']) {
      const answer = await createWithImage(t.members.Anna, {
        content: `ohne Beschreibung ${JSON.stringify(alt)}`,
        alt,
      });
      assert.equal(answer.status, 201, answer.text);
      assert.ok(!('alt' in answer.body));
      assertDocumented(answer);
      assert.ok(!('alt' in (await shown(answer.body.pid))), `alt ${JSON.stringify(alt)}`);
    }
  });

  test('a description without an image is not stored', async () => {
    const answer = await t.members.Anna.post('/api/entry/create', {
      content: 'Nur Text',
      alt: 'Ein Bild, das es nicht gibt',
    });
    assert.equal(answer.status, 201, answer.text);
    assert.ok(!('alt' in answer.body));
    assert.equal(entryRow(t.board, answer.body.pid)!.alt, '');
  });

  test('300 code points are allowed, 301 answer 400 input.invalid naming alt, and nothing is stored', async () => {
    const ok = await createWithImage(t.members.Anna, { content: 'lang', alt: '🌷'.repeat(300) });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.alt, '🌷'.repeat(300));
    const before = t.board.app.services.db.value('SELECT count(*) FROM entries');
    assertError(
      await createWithImage(t.members.Anna, { content: 'zu lang', alt: 'a'.repeat(301) }),
      400,
      'input.invalid',
      { field: 'alt', exact: true },
    );
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM entries'), before);
  });

  test('bidi controls are dropped and line breaks, tabs and runs of spaces become one space', async () => {
    const answer = await createWithImage(t.members.Anna, {
      content: 'Steuerzeichen',
      alt: ' Zwei\u202e Katzen\r\n\tauf  dem\u2066 Sofa ',
    });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.alt, 'Zwei Katzen auf dem Sofa');
    assert.equal((await shown(answer.body.pid)).alt, 'Zwei Katzen auf dem Sofa');
  });

  test('edit: no alt field keeps the description, a new one replaces it, an empty one removes it', async () => {
    const { pid } = (await createWithImage(t.members.Anna, { content: 'Vorher', alt: 'Ein Hund' })).body;
    const keep = await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Nachher' });
    assert.equal(keep.status, 200, keep.text);
    assert.deepEqual(keep.body, { pid, content: 'Nachher', alt: 'Ein Hund' });
    assertDocumented(keep);
    assert.equal((await shown(pid)).alt, 'Ein Hund');

    const replace = await t.members.Anna.post(`/api/entry/${pid}/edit`, {
      content: 'Nachher',
      alt: 'Ein schwarzer Hund am Strand',
    });
    assert.deepEqual(replace.body, { pid, content: 'Nachher', alt: 'Ein schwarzer Hund am Strand' });
    assertDocumented(replace);
    assert.equal((await shown(pid)).alt, 'Ein schwarzer Hund am Strand', 'the cached thread shows the edit');

    const clear = await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Nachher', alt: '' });
    assert.deepEqual(clear.body, { pid, content: 'Nachher' });
    assertDocumented(clear);
    assert.ok(!('alt' in (await shown(pid))));
  });

  test('edit: over 300 code points is 400 naming alt and changes nothing; an entry without an image keeps none', async () => {
    const { pid } = (await createWithImage(t.members.Anna, { content: 'Bleibt', alt: 'Ein Baum' })).body;
    assertError(
      await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Geändert', alt: 'x'.repeat(301) }),
      400,
      'input.invalid',
      'alt',
    );
    assert.deepEqual([entryRow(t.board, pid)!.content, entryRow(t.board, pid)!.alt], ['Bleibt', 'Ein Baum']);

    const textOnly = await post(t.members.Anna, 'Nur Text, später beschrieben');
    const edited = await t.members.Anna.post(`/api/entry/${textOnly}/edit`, { content: 'Nur Text', alt: 'Ein Bild?' });
    assert.deepEqual(edited.body, { pid: textOnly, content: 'Nur Text' });
    assert.equal(entryRow(t.board, textOnly)!.alt, '');
  });

  test('a deleted entry loses its description with its image; a removed one hides it until it is restored', async () => {
    const deleted = (await createWithImage(t.members.Bert, { content: 'Weg damit', alt: 'Ein Sonnenuntergang' })).body
      .pid;
    assert.equal((await t.members.Bert.post(`/api/entry/${deleted}/delete`)).status, 200);
    assert.ok(!('alt' in (await shown(deleted))));
    assert.equal(entryRow(t.board, deleted)!.alt, '');

    const removed = (await createWithImage(t.members.Bert, { content: 'Wird entfernt', alt: 'Ein Werbeplakat' })).body
      .pid;
    assert.equal((await t.members.Mona.post(`/api/mod/entry/${removed}/remove`, { reason: 'Werbung' })).status, 200);
    assert.ok(!('alt' in (await shown(removed))));
    assert.equal((await t.members.Mona.post(`/api/mod/entry/${removed}/restore`)).status, 200);
    assert.equal((await shown(removed)).alt, 'Ein Werbeplakat');
  });
});
