import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomUtils } from 'htmlparser2';
import type { Element } from 'domhandler';
import { assertOnlyShellScript, byClass, drawnPage } from '../helpers/pages.ts';
import { limitsOff, post, useBoard, visitor } from '../helpers.ts';

/**
 * docs/API.md "Pages without JavaScript", issue 32's last items: the drawn profile shows a ban in
 * force, the drawn search marks its terms, and the drawn /stats is the front end's chart.
 */

const days = 86_400;

/** The ban note of a drawn profile, or undefined. */
async function banNoteOf(t: { board: Parameters<typeof drawnPage>[0] }, name: string) {
  const p = await drawnPage(t.board, `/u/${name}`);
  const note = p.all(byClass('ban-note'))[0];
  return (
    note && { text: DomUtils.textContent(note), time: DomUtils.findOne((el) => el.name === 'time', note.children) }
  );
}

describe('the drawn pages: ban, search marks, statistics chart', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Cleo'], moderators: ['Moni'] });

  test("a banned account's profile says until when in a <time> (German), drawn fresh while the ban lasts", async () => {
    const { Bert, Moni } = t.members;
    await post(Bert, 'Bert war hier.');
    assert.equal(await banNoteOf(t, 'Bert'), undefined, 'no ban, no note');
    // The page is in the response cache now; the ban must reach it.
    const banned = await Moni.post('/api/mod/user/Bert/ban', { reason: 'Spam', days: '3' });
    assert.equal(banned.status, 200, banned.text);
    const until = banned.body.banned_until as number;
    const info = await visitor(t.board).get('/api/u/Bert/info');
    assert.equal(info.body.banned_until, until, 'the JSON profile says the same');
    const note = (await banNoteOf(t, 'Bert'))!;
    assert.ok(note, 'the note is on the page');
    const when = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Berlin' });
    assert.equal(note.text, `Dieses Konto ist gesperrt bis ${when.format(new Date(until * 1000))}.`);
    assert.match(note.text, /gesperrt bis \d{1,2}\. \S+ \d{4} um \d\d:\d\d/);
    assert.equal(note.time?.attribs.datetime, new Date(until * 1000).toISOString());

    await Moni.post('/api/mod/user/Cleo/ban', { reason: 'Drohungen' });
    assert.equal((await banNoteOf(t, 'Cleo'))?.text, 'Dieses Konto ist dauerhaft gesperrt.');
    assert.equal((await banNoteOf(t, 'Cleo'))?.time, null, 'no end, no <time>');

    // The ban ends by the clock, which no write tells the cache: the page says so at once.
    t.board.clock.advance(3 * days + 1);
    assert.equal(await banNoteOf(t, 'Bert'), undefined, 'an ended ban leaves the page');
    assert.equal((await visitor(t.board).get('/api/u/Bert/info')).body.banned_until, undefined);
    assert.equal((await Moni.post('/api/mod/user/Cleo/unban')).status, 200);
    assert.equal(await banNoteOf(t, 'Cleo'), undefined, 'an unban leaves the page');
  });

  test('the search marks its terms in the text; a hostile query stays text, its match marked', async () => {
    const { Anna } = t.members;
    const pid = await post(Anna, `Vorsicht <script>alert(1)</script> & "Zitat" beim Kaffeemarkt, Strasse 5`);
    const q = `<script> & "Zitat" kaffee straße`;
    const p = await drawnPage(t.board, `/suche?q=${encodeURIComponent(q)}`);
    assertOnlyShellScript(p);
    const card = p.all((el) => el.name === 'article' && el.attribs.id === `e${pid}`)[0]!;
    const text = DomUtils.findOne(byClass('entry-text'), card.children)!;
    const marks = DomUtils.findAll((el) => el.name === 'mark', text.children).map((m) => DomUtils.textContent(m));
    assert.deepEqual(marks, ['<script>', '&', 'Zitat', 'Kaffee', 'Strasse']);
    assert.equal(
      DomUtils.textContent(text),
      `Vorsicht <script>alert(1)</script> & "Zitat" beim Kaffeemarkt, Strasse 5`,
    );
    assert.ok(
      p.text.includes(
        'Vorsicht <mark>&lt;script&gt;</mark>alert(1)&lt;/script&gt; <mark>&amp;</mark> &quot;<mark>Zitat</mark>&quot;',
      ),
      'escaped by the one template, the marks its only markup',
    );
    assert.ok(!p.text.includes('<script>alert'), 'no raw markup anywhere');
    const h1 = p.all((el) => el.name === 'h1')[0]!;
    assert.equal(DomUtils.textContent(h1), `Suche: ${q}`);

    // Only the search marks: the same entry on its own page has none.
    assert.equal((await drawnPage(t.board, `/e/${pid}`)).all((el) => el.name === 'mark').length, 0);
  });

  test("/stats is the front end's chart: both sizes, two lines, a point a day, the values as a table", async () => {
    const detail = await visitor(t.board).get('/api/stats/detail');
    assert.equal(detail.status, 200, detail.text);
    const daily = detail.body.daily as { day: string; impressions: number; visitors: number }[];
    const p = await drawnPage(t.board, '/stats');
    assertOnlyShellScript(p);
    const figure = p.all((el) => el.name === 'figure' && byClass('chart-figure')(el))[0]!;
    assert.ok(figure, 'the chart is drawn');
    const svgs = DomUtils.findAll((el) => el.name === 'svg', figure.children);
    assert.deepEqual(
      svgs.map((s) => [s.attribs.class, s.attribs.viewbox ?? s.attribs.viewBox, s.attribs.role]),
      [
        ['chart chart-wide', '0 0 640 260', 'img'],
        ['chart chart-narrow', '0 0 360 240', 'img'],
      ],
    );
    for (const svg of svgs) {
      const title = DomUtils.findOne((el) => el.name === 'title', svg.children, false)!;
      assert.equal(title.attribs.id, svg.attribs['aria-labelledby']);
      const series = DomUtils.findAll((el) => byClass('chart-series')(el), svg.children);
      assert.equal(series.length, 2);
      for (const line of series) {
        const points = DomUtils.findOne((el) => el.name === 'polyline', line.children)!.attribs.points!.split(' ');
        assert.equal(points.length, daily.length);
        assert.equal(DomUtils.findAll((el) => el.name === 'circle', line.children).length, daily.length);
      }
    }
    const rows = DomUtils.findAll(
      (el) => el.name === 'tr' && DomUtils.findOne((c) => c.name === 'time', el.children) !== null,
      figure.children,
    );
    assert.equal(rows.length, daily.length);
    const cells = (row: Element) => DomUtils.findAll((el) => el.name === 'td', row.children).map(DomUtils.textContent);
    rows.forEach((row, i) => {
      assert.equal(DomUtils.findOne((el) => el.name === 'time', row.children)!.attribs.datetime, daily[i]!.day);
      assert.deepEqual(cells(row), [String(daily[i]!.impressions), String(daily[i]!.visitors)]);
    });
    assert.equal(
      p.all((el) => Object.keys(el.attribs).includes('style')).length,
      0,
      'no inline style: the CSP allows none',
    );
  });
});
