import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import type { Page } from 'playwright-core';
import { savePreview } from '../../lib/preview/store.ts';
import { imageFixture, limitsOff, post, visitor } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('one renderer per page', { skip: skipWithoutChromium }, () => {});

/** An element tree as [name, attributes sorted, children], adjacent texts as one: what two drawings must share. */
type Shape = string | [string, [string, string][], Shape[]];

function shapesOf(nodes: AnyNode[]): Shape[] {
  const shapes: Shape[] = [];
  for (const node of nodes) {
    if (node.type === 'text') {
      const text = DomUtils.textContent(node);
      const last = shapes.at(-1);
      if (typeof last === 'string') shapes[shapes.length - 1] = last + text;
      else if (text) shapes.push(text);
    } else if (node.type === 'tag') {
      const el = node as Element;
      const attributes = Object.entries(el.attribs).sort(([a], [b]) => a.localeCompare(b));
      shapes.push([el.name, attributes, shapesOf(el.children)]);
    }
  }
  return shapes;
}

/** The shape of the markup of one view (<div class="view">), read by the same parser whoever wrote it. */
function viewShape(markup: string): Shape {
  const view = DomUtils.findOne(
    (el) => el.name === 'div' && el.attribs.class === 'view',
    parseDocument(markup).children,
  );
  assert.ok(view, `a view in ${markup.slice(0, 200)}`);
  return shapesOf([view])[0]!;
}

/**
 * The view of `path` as the browser draws it: the router's view for the address, its data loaded
 * through the API, its markup (web/static/app.js findView and loadDrawn, a view's markup).
 */
async function drawnInBrowser(page: Page, path: string): Promise<string> {
  const url = new URL(path, 'http://board.invalid');
  const markup = await page.evaluate(`(async () => {
    const { findView, loadDrawn } = await import('/static/app.js');
    const [view, params] = findView(${JSON.stringify(url.pathname)});
    const drawn = await loadDrawn(view, { params, query: new URLSearchParams(${JSON.stringify(url.search)}) });
    if (!drawn) return 'not a view the server draws';
    return drawn.markup().outerHTML;
  })()`);
  return String(markup);
}

/**
 * Runs before the page's own scripts: once the server's page is parsed (readyState "interactive"
 * comes before the module scripts run) every node of <main> gets a mark, and every marked node
 * the scripts take out afterwards is recorded with its parent.
 */
const watchServerNodes = `document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return;
  const main = document.querySelector('main');
  window.removedFromMain = [];
  const walker = document.createTreeWalker(main);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) node.drawnByServer = true;
  new MutationObserver((records) => {
    for (const record of records)
      for (const node of record.removedNodes)
        if (node.drawnByServer)
          window.removedFromMain.push((node.nodeType === 3 ? '#text' : node.nodeName + '.' + node.className) + ' in ' + record.target.nodeName);
  }).observe(main, { childList: true, subtree: true });
});`;

/** After the front end is ready: whether the view and its entries are the server's nodes, and what the scripts took out. */
async function afterTakeOver(page: Page): Promise<{ view: boolean; cards: boolean[]; removed: string[] }> {
  return (await page.evaluate(`({
    view: document.querySelectorAll('main > .view').length === 1 && document.querySelector('main > .view').drawnByServer === true,
    cards: [...document.querySelectorAll('main article.entry')].map((card) => card.drawnByServer === true),
    removed: window.removedFromMain,
  })`)) as { view: boolean; cards: boolean[]; removed: string[] };
}

/**
 * Issue 40, one renderer per page: each public view's markup is written once (web/static/markup/)
 * and drawn by the server and by the browser; the browser takes the server's page over instead of
 * drawing it again.
 */
describe('one renderer per page: the server and the browser draw each public view alike', {
  skip: skipWithoutChromium,
}, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Moni'] });
  const pids: Record<string, number> = {};
  const hostile = `<script>alert("x")</script> & 'quotes' <b>fett</b>`;
  let paths: string[] = [];

  before(async () => {
    const { Anna, Bert, Moni } = t.members;
    for (let i = 0; i < 20; i++) await post(Bert, `Füllthema Nummer ${i}.`);
    const image = await Anna.postMultipart(
      '/api/entry/create',
      { content: `Kaffee am Markt,\r\nsiehe https://example.org/markt ${hostile}`, alt: 'Tassen "im" Regen' },
      [{ name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) }],
    );
    assert.equal(image.status, 201, image.text);
    pids.root = image.body.pid as number;
    savePreview(
      t.board.app.services.db,
      { url: 'https://example.org/markt', kind: 'page', title: `Markt ${hostile}`, site: 'example.org', thumb: '' },
      t.board.clock.now(),
    );
    pids.middle = await post(Bert, 'Die Mitte, mit Kaffee.', pids.root);
    pids.leaf = await post(Anna, 'Ein Blatt\nüber zwei Zeilen.', pids.middle);
    pids.deleted = await post(Bert, 'Wird gelöscht.', pids.root);
    pids.below = await post(Anna, 'Lebt unter dem Gelöschten.', pids.deleted);
    assert.equal((await Bert.post(`/api/entry/${pids.deleted}/delete`)).status, 200);
    pids.removed = await post(Bert, 'Billige Uhren, nur heute!');
    assert.equal((await Moni.post(`/api/mod/entry/${pids.removed}/remove`, { reason: hostile })).status, 200);
    assert.equal(
      (await Bert.post(`/api/entry/${pids.middle}/edit`, { content: 'Die Mitte, mit Kaffee & Kuchen.' })).status,
      200,
    );
    assert.equal((await Bert.post(`/api/entry/${pids.root}/bump`)).status, 200);
    assert.equal((await Bert.post(`/api/entry/${pids.root}/vote`, { mode: 'yes' })).status, 200);
    assert.equal((await Anna.post(`/api/entry/${pids.middle}/vote`, { mode: 'no' })).status, 200);
    assert.equal((await Moni.post('/api/mod/user/Bert/ban', { reason: 'Spam', days: '3' })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await visitor(t.board).get('/')).status, 200);
    paths = [
      '/',
      '/?seite=2',
      `/e/${pids.root}`,
      `/e/${pids.middle}`,
      `/e/${pids.leaf}`,
      `/e/${pids.deleted}`,
      `/e/${pids.removed}`,
      '/u/Anna',
      '/u/Bert',
      '/suche',
      `/suche?q=${encodeURIComponent('kaffee <b>')}`,
      '/suche?q=kaffee&user=Anna',
      '/suche?q=nirgendwo',
      '/suche?q=kaffee&user=Niemand',
      '/modlog',
      '/stats',
      '/gibt-es-nicht',
      '/e/999999',
      '/u/Niemand',
    ];
  });

  test('each public view: the markup the server sends is the markup the browser draws from the same data', async () => {
    const { page, context } = await t.newPage();
    await openBoard(page, t.board, '/');
    for (const path of paths) {
      const answer = await visitor(t.board).get(path);
      assert.ok([200, 404, 410].includes(answer.status), `${path}: ${answer.status}`);
      assert.deepEqual(viewShape(await drawnInBrowser(page, path)), viewShape(answer.text), path);
    }
    await context.close();
  });

  test('each public view: the front end keeps the nodes the server drew and only adds its actions', async () => {
    const { page, context } = await t.newPage();
    await context.addInitScript({ content: watchServerNodes });
    for (const path of paths) {
      await openBoard(page, t.board, path);
      const after = await afterTakeOver(page);
      assert.ok(after.view, `${path}: the server's view is still there, not drawn again`);
      assert.ok(!after.cards.includes(false), `${path}: every card is the server's (${after.cards.join(', ')})`);
      // What the front end does to a drawn view: the counts become vote buttons, times relative.
      const added = after.removed.filter((node) => node !== 'DIV.entry-actions in ARTICLE' && node !== '#text in TIME');
      assert.deepEqual(added, [], path);
      if (path === `/e/${pids.root}`)
        assert.ok(after.removed.includes('DIV.entry-actions in ARTICLE'), 'the cards got their actions');
    }
    await context.close();
  });

  test('logged in, the feed is taken over too: the way to log in becomes the form to write', async () => {
    const { page, context } = await t.newPage({ as: t.members.Anna });
    await context.addInitScript({ content: watchServerNodes });
    await openBoard(page, t.board, '/');
    await page.getByRole('button', { name: 'Neues Thema schreiben' }).waitFor();
    const after = await afterTakeOver(page);
    assert.ok(after.view, "the server's view is still there");
    assert.ok(after.cards.length > 20 && !after.cards.includes(false), "every card is the server's");
    assert.deepEqual([...new Set(after.removed)].sort(), [
      '#text in TIME',
      'DIV.entry-actions in ARTICLE',
      'P.note login-offer in DIV',
    ]);
    await context.close();
  });

  t.testCleanRecords();
});
