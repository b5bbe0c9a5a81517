import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { limitsOff, password, post } from '../helpers.ts';
import {
  keepScreenshot,
  openBoard,
  screenshotDir,
  skipWithoutChromium,
  useBrowserBoard,
  waitInPage,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('pages without JavaScript', { skip: skipWithoutChromium }, () => {});

/**
 * Issue 32: the public pages hold their content as HTML. With scripts off every public page shows
 * it and its links navigate; with scripts on the front end takes over without an error.
 */
describe('the public pages in Chromium, with scripts off and on', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Moni'] });
  const pids: Record<string, number> = {};

  before(async () => {
    const { Anna, Bert, Moni } = t.members;
    for (let i = 0; i < 21; i++) await post(Bert, `Füllthema Nummer ${i}.`);
    pids.top = await post(Anna, 'Wo gibt es guten Kaffee? Siehe https://example.org/kaffee');
    pids.reply = await post(Bert, 'Im Café am Markt.', pids.top);
    pids.removed = await post(Bert, 'Billige Uhren, nur heute!');
    assert.equal((await Moni.post(`/api/mod/entry/${pids.removed}/remove`, { reason: 'Werbung' })).status, 200);
    assert.equal((await Anna.post(`/api/entry/${pids.top}/vote`, { mode: 'yes' })).status, 200);
  });

  test('scripts off: feed, thread, profile, search, log and statistics show their content; links navigate', async () => {
    const { page } = await t.newPage({ javaScriptEnabled: false });
    const main = page.locator('main');
    await page.goto(`${t.board.url}/`);
    await main.getByRole('heading', { level: 1, name: 'Neueste Themen' }).waitFor();
    const card = main.locator(`article#e${pids.top}`);
    await card.getByText('Wo gibt es guten Kaffee?').waitFor();
    assert.match(await card.locator('time').first().innerText(), /^\d{1,2}\. \S+ \d{4} um \d\d:\d\d$/);
    assert.equal(await card.locator('a.external').getAttribute('href'), 'https://example.org/kaffee');
    assert.match(await card.locator('.votes').innerText(), /Ja\s+1\s+▼\s+Nein\s+0/);
    await main.getByText('Im Café am Markt.').waitFor();
    assert.equal(await main.getByText('Billige Uhren').count(), 0, 'the removed entry is gone');
    await keepScreenshot(page, screenshotDir('no-script'), 'no-script-feed');

    // Paging, then the thread, then the author.
    await main.getByRole('link', { name: 'Ältere →' }).click();
    await page.waitForURL(/\?seite=2$/);
    await main.getByRole('heading', { level: 1, name: 'Neueste Themen, Seite 2' }).waitFor();
    await main.getByRole('link', { name: '← Neuere' }).click();
    await page.waitForURL(`${t.board.url}/`);
    await card.locator('a.entry-time').click();
    await page.waitForURL(`${t.board.url}/e/${pids.top}`);
    await main.getByRole('heading', { level: 1, name: 'Thema von Anna' }).waitFor();
    await main.getByRole('heading', { level: 2, name: '1 Antwort' }).waitFor();
    await main.locator(`article#e${pids.reply}`).getByRole('link', { name: 'Bert' }).first().click();
    await page.waitForURL(`${t.board.url}/u/Bert`);
    await main.getByRole('heading', { level: 1, name: 'Bert' }).waitFor();
    await main.getByText('Im Café am Markt.').waitFor();
    assert.equal(await main.getByText('Billige Uhren').count(), 0, "not on its author's page either");

    // The header's search form is a plain GET form.
    await page.getByLabel('Beiträge durchsuchen').fill('Kaffee');
    await page.getByLabel('Beiträge durchsuchen').press('Enter');
    await page.waitForURL(/\/suche\?q=Kaffee$/);
    await main.getByRole('heading', { level: 1, name: 'Suche: Kaffee' }).waitFor();
    await main.locator(`article#e${pids.top}`).waitFor();

    // The removed entry's own page says only that it is gone.
    const gone = await page.goto(`${t.board.url}/e/${pids.removed}`);
    assert.equal(gone?.status(), 410);
    await main.getByText('von der Moderation entfernt: Werbung').waitFor();
    assert.equal(await page.getByText('Billige Uhren').count(), 0);

    await page.getByRole('link', { name: 'Moderationsprotokoll' }).click();
    await main.getByText(`Beitrag #${pids.removed} von Bert entfernt`).waitFor();
    await page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Statistik' }).click();
    await main.getByRole('heading', { level: 1, name: 'Statistik' }).waitFor();
    assert.match(await main.locator('.stat-grid').innerText(), /Mitglieder\s+3/);

    // A page that needs scripts says so (in <noscript>, which a browser with scripts off shows;
    // Chromium's switch for tests stops scripts but parses as if they ran, so the source is read).
    await page.goto(`${t.board.url}/login`);
    assert.match(await main.innerHTML(), /<noscript><p>Diese Seite braucht JavaScript\./);
    await t.giveBack(page);
  });

  test('scripts on: the front end takes over the drawn page without an error; it looks as before', async () => {
    const { page } = await t.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await openBoard(page, t.board, `/e/${pids.top}`);
    const card = page.locator(`main article#e${pids.top}`);
    // The front end's own card: buttons to vote, "vor …" times.
    await card.getByRole('button', { name: /Ja/ }).waitFor();
    await waitInPage(
      page,
      'the tally',
      `document.querySelector('main article#e${pids.top} .vote-count')?.textContent === '1'`,
    );
    assert.match(await card.locator('time').first().innerText(), /^(vor |gerade)/);
    assert.equal(await page.locator('main .view').count(), 1, 'one view: the drawn page was replaced, not added to');
    await keepScreenshot(page, screenshotDir('no-script'), 'scripts-thread');
    await openBoard(page, t.board, '/');
    await keepScreenshot(page, screenshotDir('no-script'), 'scripts-feed');
    assert.deepEqual(errors, []);
    await t.giveBack(page);
  });

  test('frictions: the search fields look like the forms, a moderator\'s navigation is one row at 1280 px, "Mehr" says what it holds, the login stays 30 days', async () => {
    const login = t.board.client();
    assert.equal((await login.post('/api/auth/login', { user: 'Moni', pass: password })).status, 200);
    const { page } = await t.newPage({ width: 1280, height: 900, as: login });
    await openBoard(page, t.board, '/');
    const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
    await nav.getByRole('button', { name: 'Abmelden' }).waitFor();
    const rows = await nav.locator(':scope > *').evaluateAll((items) =>
      items.map((item) => {
        const r = item.getBoundingClientRect();
        return Math.round(r.top + r.height / 2);
      }),
    );
    assert.ok(Math.max(...rows) - Math.min(...rows) < 6, `one row: ${rows.join(', ')}`);
    const header = await page.locator('.site-header-inner').boundingBox();
    const field = await page.locator('#site-search-q').boundingBox();
    assert.ok(field && header && field.y + field.height <= header.y + header.height, 'the search field is in the row');
    const styleOf = `(el) => { const s = getComputedStyle(el); return [s.borderTopLeftRadius, s.borderTopStyle, s.borderTopColor, s.fontFamily].join(' | '); }`;
    const look = (on: typeof page, selector: string) => on.locator(selector).evaluate(styleOf) as Promise<string>;
    const headerLook = await look(page, '#site-search-q');
    const more = page.locator(`main article#e${pids.top} > .entry-actions`).getByRole('button', { name: /Mehr/ });
    // The hint names the menu's first two actions; since issue 34 the second is Folgen.
    assert.match(await more.innerText(), /^Mehr: Hochholen, Folgen …/);
    await openBoard(page, t.board, '/suche?q=Kaffee');
    assert.equal(await look(page, '#search-page-q'), headerLook, 'both search fields alike');
    await t.giveBack(page);

    const visitor = await t.newPage({ width: 1280, height: 900 });
    await openBoard(visitor.page, t.board, '/login');
    assert.equal(await look(visitor.page, '#site-search-q'), headerLook);
    const formLook = (await visitor.page.getByLabel('Passwort').evaluate(styleOf)) as string;
    assert.equal(headerLook, formLook, "like the login form's fields");
    assert.equal(await visitor.page.getByLabel('Angemeldet bleiben für').inputValue(), '2592000');
    await t.giveBack(visitor.page);
  });

  t.testCleanRecords();
});
