import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomUtils } from 'htmlparser2';
import { assertOnlyShellScript, byClass, drawnPage } from '../helpers/pages.ts';
import { limitsOff, post, useBoard, visitor } from '../helpers.ts';

/**
 * docs/API.md "Pages without JavaScript", issue 32's last items: the drawn profile shows a ban in
 * force, and the drawn search marks its terms.
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

describe('the drawn pages: ban, search marks', () => {
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
});
