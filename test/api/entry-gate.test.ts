import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertError,
  entryCount,
  entryRow,
  imageFixture,
  mediaFiles,
  member,
  post,
  useBoard,
  type Answer,
  type Client,
} from '../helpers.ts';

/**
 * The entry gate (lib/entries/content-gate.ts; docs/API.md "POST /api/entry/create", "…/edit",
 * "Trust levels"): every path that writes an entry's text, a create and an edit, goes through it,
 * and each rule refuses each path with the same answer (status, code, field, message,
 * Retry-After). A refused create stores nothing; a refused edit leaves the entry as it was. An edit
 * is judged on what the entry holds after it; level 0's day counts skip what it already held.
 */

type Path = 'create' | 'edit';
type Fields = Record<string, string>;

describe('the entry gate: every path, refused by every rule', () => {
  // The board's first account starts trusted: the rules that hold for everyone are shown on it.
  const t = useBoard({ members: ['Anna'] });
  let image: Buffer;
  before(async () => {
    image = await imageFixture({ format: 'png' });
  });

  const createWithImage = (client: Client, fields: Fields) =>
    client.postMultipart('/api/entry/create', fields, [{ name: 'file', filename: 'a.png', data: image }]);

  /** A new account, past its first 10 minutes when `settled`: level 0 with its caps. */
  async function levelZero(name: string, settled: boolean): Promise<Client> {
    const client = await member(t.board, name);
    if (settled) t.board.clock.advance(601);
    return client;
  }

  /**
   * Sends the same fields as a create (with an image when `withImage`) and as an edit of
   * `editable`, an entry of the same author, and checks that neither refusal changed anything.
   */
  async function throughBoth(
    client: Client,
    editable: number,
    fields: Fields,
    withImage = false,
  ): Promise<Record<Path, Answer>> {
    const entries = entryCount(t.board);
    const create = withImage ? await createWithImage(client, fields) : await client.post('/api/entry/create', fields);
    if (create.status >= 400) assert.equal(entryCount(t.board), entries, 'a refused create stores nothing');
    const stored = entryRow(t.board, editable);
    const edit = await client.post(`/api/entry/${editable}/edit`, fields);
    if (edit.status >= 400) assert.deepEqual(entryRow(t.board, editable), stored, 'a refused edit changes nothing');
    return { create, edit };
  }

  /** Both paths refused alike: status, code, field, message and Retry-After. */
  function assertSameRefusal(answers: Record<Path, Answer>, status: number, code: string, field?: string): void {
    for (const path of ['create', 'edit'] as const)
      assertError(answers[path], status, code, { exact: true, field, note: path });
    assert.equal(answers.edit.body.error.message, answers.create.body.error.message, 'the same message');
    assert.equal(answers.edit.headers.get('retry-after'), answers.create.headers.get('retry-after'));
  }

  test('no text and no image: 400 entry.empty', async () => {
    const pid = await post(t.members.Anna, 'Ein Beitrag mit Text');
    assertSameRefusal(await throughBoth(t.members.Anna, pid, { content: '  ' }), 400, 'entry.empty');
  });

  test('more than 1000 characters: 400 entry.too_long naming content', async () => {
    const pid = await post(t.members.Anna, 'Ein kurzer Beitrag');
    const answers = await throughBoth(t.members.Anna, pid, { content: 'x'.repeat(1001) });
    assertSameRefusal(answers, 400, 'entry.too_long', 'content');
  });

  test('an image description over 300 characters: 400 input.invalid naming alt', async () => {
    const withPicture = await createWithImage(t.members.Anna, { content: 'Ein Bild', alt: 'Ein Baum' });
    assert.equal(withPicture.status, 201, withPicture.text);
    const answers = await throughBoth(
      t.members.Anna,
      withPicture.body.pid,
      { content: 'Ein Bild', alt: 'x'.repeat(301) },
      true,
    );
    assertSameRefusal(answers, 400, 'input.invalid', 'alt');
  });

  test('links in the first 10 minutes: 429 rate.new_account saying when; an edit cannot attach an image either', async () => {
    const neo = await levelZero('Neo', false);
    const pid = await post(neo, 'Nur Text geht sofort');
    const answers = await throughBoth(neo, pid, { content: 'Nur Text geht sofort https://a.example/' });
    assertSameRefusal(answers, 429, 'rate.new_account');
    assert.match(answers.edit.body.error.message, /in den ersten 10 Minuten .* Das geht in 10 Minuten\.$/);

    t.board.clock.advance(61); // the create write limit of a new account: 2 a minute
    assertError(await createWithImage(neo, { content: 'Mit Bild' }), 429, 'rate.new_account', { exact: true });
    const files = mediaFiles(t.board);
    const edit = await neo.postMultipart(`/api/entry/${pid}/edit`, { content: 'Mit Bild?' }, [
      { name: 'file', filename: 'a.png', data: image },
    ]);
    assert.equal(edit.status, 200, edit.text);
    assert.equal(entryRow(t.board, pid)!.filepath, '', 'an edit has no file field: nothing is attached');
    assert.deepEqual(mediaFiles(t.board), files);
  });

  test('level 0: more than 2 links in one entry: 429 rate.new_account naming the caps', async () => {
    const lea = await levelZero('Lea', true);
    const pid = await post(lea, 'Ein Link https://a.example/');
    const answers = await throughBoth(lea, pid, {
      content: 'Ein Link https://a.example/ https://b.example/ https://c.example/',
    });
    assertSameRefusal(answers, 429, 'rate.new_account');
    assert.match(answers.edit.body.error.message, /höchstens 2 Beiträge mit Links \(je höchstens 2 Links\)/);
    assert.equal(answers.edit.headers.get('retry-after'), '86400');
  });

  test('level 0: 2 entries with links a day; an edit that gives an entry links counts as one, new links in an entry that has some do not', async () => {
    const tom = await levelZero('Tom', true);
    const plain = await post(tom, 'Erst ohne Link');
    const linked = await post(tom, 'Mit Link https://a.example/');
    for (let i = 0; i < 4; i++) {
      const churn = await tom.post(`/api/entry/${linked}/edit`, { content: `Mit Link https://x${i}.example/` });
      assert.equal(churn.status, 200, `edit ${i} of an entry that has links: ${churn.text}`);
    }
    const added = await tom.post(`/api/entry/${plain}/edit`, { content: 'Jetzt mit Link https://b.example/' });
    assert.equal(added.status, 200, 'the second entry with links of the day');

    t.board.clock.advance(61); // the create write limit of a new account: 2 a minute
    const third = await post(tom, 'Noch ohne Link');
    const answers = await throughBoth(tom, third, { content: 'Noch ohne Link https://c.example/' });
    assertSameRefusal(answers, 429, 'rate.new_account');
    assert.match(answers.create.body.error.message, /höchstens 2 Beiträge mit Links/);
    assert.ok(Number(answers.create.headers.get('retry-after')) > 0);
    const again = await tom.post(`/api/entry/${linked}/edit`, { content: 'Mit Link https://y.example/' });
    assert.equal(again.status, 200, 'an entry that has links may still change them');
  });

  test('level 0: 1 image a day; an edit of an image entry does not count it again', async () => {
    const ida = await levelZero('Ida', true);
    const first = await createWithImage(ida, { content: 'Mein Bild' });
    assert.equal(first.status, 201, first.text);
    for (const content of ['Mein Bild, bearbeitet', 'Mein Bild, nochmals']) {
      const edit = await ida.post(`/api/entry/${first.body.pid}/edit`, { content });
      assert.equal(edit.status, 200, edit.text);
    }
    const second = await createWithImage(ida, { content: 'Noch ein Bild' });
    assertError(second, 429, 'rate.new_account', { exact: true });
    assert.match(second.body.error.message, /und 1 Bild posten/);
  });

  test('the same text twice within 10 minutes: 409 entry.duplicate naming content; an edit keeps its own text', async () => {
    const anna = t.members.Anna;
    t.board.clock.advance(61); // a fresh minute of Anna's create limit
    const text = 'Kauft billige Uhren bei uns!';
    const original = await post(anna, text);
    const other = await post(anna, 'Ein ganz anderer Beitrag');
    assertSameRefusal(
      await throughBoth(anna, other, { content: `  ${text.toUpperCase()} ` }),
      409,
      'entry.duplicate',
      'content',
    );
    const same = await anna.post(`/api/entry/${original}/edit`, { content: text, alt: '' });
    assert.equal(same.status, 200, 'its own text is no copy');
  });

  test('an edit writes its text anew: the same text again within 10 minutes of an edit is a copy', async () => {
    const anna = t.members.Anna;
    const old = await post(anna, 'Ein alter Beitrag von früher');
    t.board.clock.advance(11 * 60);
    const text = 'Neuer Werbetext für alle Leser';
    assert.equal((await anna.post(`/api/entry/${old}/edit`, { content: text })).status, 200);
    const other = await post(anna, 'Noch ein anderer Beitrag');
    assertSameRefusal(await throughBoth(anna, other, { content: text }), 409, 'entry.duplicate', 'content');
  });
});
