import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { DomUtils, parseDocument } from 'htmlparser2';
import { assertDocumented, imageFixture, limitsOff, post, useBoard, visitor } from '../helpers.ts';
import { impressionsSoFar } from '../helpers/atom.ts';

/** docs/API.md "Pages that share well": the head tags of /e/{pid} and /u/{username}, escaped, and nothing about gone entries. */

/** The front end's script tag as web/index.html has it, its file under the front end's version: a share page is that same shell. */
const shellScript = new RegExp(
  /<script type="module" src="\/static\/([^"]+)"><\/script>/
    .exec(readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8'))![0]
    .replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    .replace('\\/static\\/', '\\/static\\/v\\/[0-9a-f]{16}\\/'),
);

interface Head {
  title: string;
  meta: Record<string, string>;
  alternate: string[];
  /** Every element of the page, to check that no text became markup. */
  elements: string[];
}

function headOf(html: string): Head {
  const doc = parseDocument(html);
  const meta: Record<string, string> = {};
  for (const el of DomUtils.getElementsByTagName('meta', doc)) {
    const key = el.attribs.property ?? el.attribs.name;
    if (key) meta[key] = el.attribs.content ?? '';
  }
  const titles = DomUtils.getElementsByTagName('title', doc);
  assert.equal(titles.length, 1, 'one <title>');
  return {
    title: DomUtils.textContent(titles[0]!),
    meta,
    alternate: DomUtils.getElementsByTagName('link', doc)
      .filter((l) => l.attribs.rel === 'alternate')
      .map((l) => l.attribs.href!),
    elements: DomUtils.getElementsByTagName(() => true, doc).map((el) => el.name),
  };
}

async function page(path: string, board: Parameters<typeof visitor>[0], status = 200): Promise<Head> {
  const answer = await visitor(board).get(path);
  assert.equal(answer.status, status, path);
  assertDocumented(answer);
  assert.match(answer.headers.get('content-type')!, /^text\/html/);
  assert.match(answer.text, shellScript, 'the same front-end shell');
  return headOf(answer.text);
}

const hostile = `Er sagte "Hallo" & 'Tschüss' </title><script>alert(1)</script> \u202Eevil.example\u202C ${'lang '.repeat(60)}`;

describe('pages that share well', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna Q.', 'Bert'], moderators: ['Mod'] });

  test("/e/{pid}: title, description, Open Graph and Twitter tags with absolute URLs; the thread's feed as alternate", async () => {
    const origin = t.board.config.origin;
    const withImage = await t.members.Bert.postMultipart(
      '/api/entry/create',
      { content: 'Ein Foto vom Wochenmarkt.' },
      [{ name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) }],
    );
    assert.equal(withImage.status, 201, withImage.text);
    const { pid, filepath } = withImage.body;
    const head = await page(`/e/${pid}`, t.board);
    assert.equal(head.title, 'Ein Foto vom Wochenmarkt. – Bert – Das Board');
    assert.equal(head.meta.description, 'Bert: Ein Foto vom Wochenmarkt.');
    assert.equal(head.meta['og:title'], head.title);
    assert.equal(head.meta['og:description'], head.meta.description);
    assert.equal(head.meta['og:type'], 'article');
    assert.equal(head.meta['og:url'], `${origin}/e/${pid}`);
    assert.equal(head.meta['og:image'], `${origin}/static/media/${filepath}`);
    assert.equal(head.meta['twitter:card'], 'summary_large_image');
    assert.equal(head.meta['twitter:image'], head.meta['og:image']);
    assert.ok(head.alternate.includes(`${origin}/e/${pid}/feed.atom`));
    const plain = await page(`/e/${await post(t.members.Bert, 'Ohne Bild.')}`, t.board);
    assert.equal(plain.meta['twitter:card'], 'summary');
    assert.equal(plain.meta['og:image'], undefined);
  });

  test('text is escaped for the attribute context: quotes, <script>, bidi controls', async () => {
    const pid = await post(t.members['Anna Q.'], hostile);
    const answer = await visitor(t.board).get(`/e/${pid}`);
    assert.ok(!answer.text.includes('<script>alert(1)'), 'no markup from the text');
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(answer.text), 'no bidi controls');
    const head = headOf(answer.text);
    assert.equal(head.elements.filter((name) => name === 'script').length, 1, "only the shell's own script");
    assert.match(
      head.meta.description!,
      /^Anna Q\.: Er sagte "Hallo" & 'Tschüss' <\/title><script>alert\(1\)<\/script> evil\.example lang/,
    );
    assert.ok([...head.meta.description!].length <= 'Anna Q.: '.length + 200);
    assert.match(head.title, /^Er sagte "Hallo" & 'Tschüss' <\/title><script>/);
    const profile = await page('/u/anna%20q.', t.board);
    assert.equal(profile.title, 'Anna Q. – Das Board');
    assert.equal(profile.meta['og:type'], 'profile');
    assert.equal(profile.meta['og:url'], `${t.board.config.origin}/u/Anna%20Q.`);
    assert.ok(profile.alternate.includes(`${t.board.config.origin}/u/Anna%20Q./feed.atom`));
  });

  test('removed, deleted and unknown entries reveal nothing; unknown users are the 404 page', async () => {
    const { Bert, Mod } = t.members;
    const top = await post(Bert, 'Geheimes Thema ABC.');
    await post(t.members['Anna Q.'], 'Antwort hält den Faden.', top);
    const removed = await post(Bert, 'Entferntes Geheimnis XYZ.');
    assert.equal((await Bert.post(`/api/entry/${top}/delete`)).status, 200);
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/remove`, { reason: 'Spam' })).status, 200);
    // Issue 32: a gone entry's page is 410 unless something live hangs below it; its title says only that it is gone.
    for (const [path, status, title] of [
      [`/e/${top}`, 200, 'Gelöschter Beitrag – Das Board'],
      [`/e/${removed}`, 410, 'Entfernter Beitrag – Das Board'],
      ['/e/999999', 404, 'Nicht gefunden – Das Board'],
      ['/u/Niemand', 404, 'Nicht gefunden – Das Board'],
    ] as const) {
      const answer = await visitor(t.board).get(path);
      assert.equal(answer.status, status, path);
      assertDocumented(answer);
      assert.ok(!/Geheim|XYZ/.test(answer.text), `${path} says nothing of the entry`);
      const head = headOf(answer.text);
      assert.equal(head.title, title, path);
      assert.equal(head.meta['og:title'], undefined, path);
    }
  });

  test('an edit shows at once (the cached page follows the write); the page GET counts its impression', async () => {
    const pid = await post(t.members.Bert, 'Erste Fassung.');
    assert.match((await page(`/e/${pid}`, t.board)).title, /^Erste Fassung\./);
    assert.equal((await t.members.Bert.post(`/api/entry/${pid}/edit`, { content: 'Zweite Fassung.' })).status, 200);
    assert.match((await page(`/e/${pid}`, t.board)).title, /^Zweite Fassung\./);
    const before = impressionsSoFar(t.board);
    await page(`/e/${pid}`, t.board);
    assert.equal(impressionsSoFar(t.board), before + 1);
  });
});
