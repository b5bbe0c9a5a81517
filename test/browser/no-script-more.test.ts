import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { AnyNode, Element } from 'domhandler';
import type { Page } from 'playwright-core';
import { limitsOff, post, visitor } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('drawn pages as the front end draws them', { skip: skipWithoutChromium }, () => {});

/** An element tree as [name, attributes sorted, children], text trimmed: what two drawings must share. */
type Shape = string | [string, [string, string][], Shape[]];

function shapeOf(node: AnyNode): Shape | null {
  if (node.type === 'text') return DomUtils.textContent(node).trim() || null;
  if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') return null;
  const el = node as Element;
  const attributes = Object.entries(el.attribs).sort(([a], [b]) => a.localeCompare(b));
  const children = el.children.map(shapeOf).filter((child) => child !== null);
  return [el.name, attributes, children];
}

/** The shape of what `selector` holds, as the browser has it now (its own serialisation, parsed). */
async function shapeIn(page: Page, selector: string): Promise<Shape[]> {
  const markup = await page.locator(selector).innerHTML();
  return parseDocument(markup)
    .children.map(shapeOf)
    .filter((shape) => shape !== null);
}

/** The <mark>s of each entry's text, by entry: where the search marked its terms. */
async function marksIn(page: Page): Promise<string[]> {
  const markup = await page.locator('main').innerHTML();
  return DomUtils.findAll((el) => el.name === 'mark', parseDocument(markup).children).map((mark) => {
    let card = mark.parent as Element | null;
    while (card && card.name !== 'article') card = card.parent as Element | null;
    return `${card?.attribs.id}: ${DomUtils.textContent(mark)}`;
  });
}

/**
 * Issue 32's last items, in Chromium with scripts off and on: a banned account's profile, the
 * search's marks and the statistics chart are drawn by the server as the front end draws them, so
 * nothing changes when the front end takes over; a visitor's one further action stands in the row.
 */
describe("the drawn pages are the front end's: ban, marks, chart", { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Moni'] });
  const pids: Record<string, number> = {};
  let banEnd = 0;

  before(async () => {
    const { Anna, Bert, Moni } = t.members;
    // Page views on three days, so the chart's lines are not flat; today has none.
    for (const views of [3, 7, 2]) {
      for (let i = 0; i < views; i++) assert.equal((await visitor(t.board).get('/')).status, 200);
      t.board.clock.advance(86_400);
    }
    pids.coffee = await post(Anna, 'Guter Kaffee & <b>Kuchen</b>? Am Kaffeemarkt, siehe https://example.org/kaffee');
    pids.street = await post(Bert, 'Die Hauptstraße hat auch Kaffee & <b>fett</b>', pids.coffee);
    const banned = await Moni.post('/api/mod/user/Bert/ban', { reason: 'Spam', days: '3' });
    assert.equal(banned.status, 200, banned.text);
    banEnd = banned.body.banned_until;
  });

  test('a banned profile: the note with its end as a German <time>, the same with scripts off and on', async () => {
    const off = await t.keptPage('scripts off', { javaScriptEnabled: false });
    await off.goto(`${t.board.url}/u/Bert`);
    const note = off.locator('main .ban-note');
    const text = await note.innerText();
    assert.match(text, /^Dieses Konto ist gesperrt bis \d{1,2}\. \S+ \d{4} um \d\d:\d\d\.$/);
    assert.equal(await note.locator('time').getAttribute('datetime'), new Date(banEnd * 1000).toISOString());

    // One renderer: the front end's note is the server's, word for word.
    const on = await t.keptPage('scripts on');
    await openBoard(on, t.board, '/u/Bert');
    const drawn = on.locator('main .ban-note');
    assert.equal(await drawn.innerText(), text);
    assert.equal(await drawn.locator('time').getAttribute('datetime'), new Date(banEnd * 1000).toISOString());
  });

  test('a search: the drawn page marks the words where the front end marks them; hostile text stays text', async () => {
    const q = 'kaffee & <b>';
    const path = `/suche?q=${encodeURIComponent(q)}`;
    const off = await t.keptPage('scripts off', { javaScriptEnabled: false });
    await off.goto(t.board.url + path);
    const drawn = await marksIn(off);
    for (const mark of [
      `e${pids.coffee}: <b>`,
      `e${pids.coffee}: kaffee`,
      `e${pids.street}: Kaffee`,
      `e${pids.street}: &`,
    ])
      assert.ok(drawn.includes(mark), `${mark} in ${drawn.join(' | ')}`);
    assert.deepEqual(
      drawn.filter((mark) => !/^e\d+: (kaffee|&|<b>)$/i.test(mark)),
      [],
      'only the words of the search are marked',
    );
    assert.equal(await off.locator('main b').count(), 0, 'no markup from the entry or the query');

    const on = await t.keptPage('scripts on');
    await openBoard(on, t.board, path);
    await on.locator(`main article#e${pids.coffee} .entry-text mark`).first().waitFor();
    assert.deepEqual(await marksIn(on), drawn, 'the front end marks the same');
  });

  test("/stats: the drawn chart is the front end's, element for element; the narrow one on a phone", async () => {
    const section = 'main section[aria-labelledby="daily-heading"]';
    const off = await t.keptPage('scripts off', { javaScriptEnabled: false });
    await off.goto(`${t.board.url}/stats`);
    const drawn = await shapeIn(off, section);
    const wholeView = await shapeIn(off, 'main');
    assert.equal(await off.locator('svg.chart-wide').isVisible(), true);
    assert.equal(await off.locator('svg.chart-narrow').isVisible(), false);
    assert.equal(await off.locator('svg.chart-wide polyline').count(), 2);
    assert.equal(await off.locator('svg.chart-wide .chart-impressions circle').count(), 30);
    // The numbers without scripts: the table folds open without them.
    await off.locator(`${section} summary`).click();
    const row = off.locator(`${section} tbody tr`).nth(27);
    assert.match(await row.innerText(), /^\d{1,2}\.\d{1,2}\.\s+7\s+\d+$/);

    const on = await t.keptPage('scripts on');
    await openBoard(on, t.board, '/stats');
    assert.deepEqual(await shapeIn(on, section), drawn, 'the same chart after the front end took over');
    assert.deepEqual(await shapeIn(on, 'main'), wholeView, 'and the same page around it');

    const phone = await t.keptPage('phone, scripts off', { width: 390, height: 844, javaScriptEnabled: false });
    await phone.goto(`${t.board.url}/stats`);
    assert.equal(await phone.locator('svg.chart-wide').isVisible(), false);
    assert.equal(await phone.locator('svg.chart-narrow').isVisible(), true);
    const overflow = await phone.locator('svg.chart-narrow').boundingBox();
    assert.ok(overflow && overflow.width <= 390, `the chart fits the phone (${overflow?.width} px)`);
  });

  test('logged out, an entry\'s one further action "Melden" stands in the row, not in a list of one', async () => {
    const page = await t.keptPage('scripts on');
    await openBoard(page, t.board, `/e/${pids.coffee}`);
    const row = page.locator(`main article#e${pids.coffee} > .entry-actions`);
    await row.getByRole('button', { name: 'Melden', exact: true }).click();
    assert.equal(await row.getByRole('button', { name: /Mehr/ }).count(), 0);
    await page.locator(`main article#e${pids.coffee}`).getByLabel('Grund (optional)').waitFor();
    await row.getByRole('button', { name: 'Melden', exact: true }).click();
    await page.locator(`main article#e${pids.coffee}`).getByLabel('Grund (optional)').waitFor({ state: 'detached' });
  });

  t.testCleanRecords();
});
