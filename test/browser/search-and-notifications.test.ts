import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flushImpressions } from '../../lib/stats/impressions.ts';
import { limitsOff, post } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('finding browser tests', { skip: skipWithoutChromium }, () => {});

/** Search, the notification badge and the notifications page in Debian's Chromium (issue 15). */
describe('search and notifications in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test("the header's search field finds compounds, marks the words and pages; an empty result helps", async () => {
    await post(t.members.Anna, 'Unser Balkonkraftwerk läuft.');
    for (let i = 0; i < 21; i++) await post(t.members.Bert, `Kraftwerk Nummer ${i}`);
    const { page } = await t.newPage();
    await openBoard(page, t.board, '/');
    await page.getByRole('searchbox', { name: 'Beiträge durchsuchen' }).fill('KRAFTWERK');
    await page.getByRole('searchbox', { name: 'Beiträge durchsuchen' }).press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Suche: KRAFTWERK' }).waitFor();
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, '/suche?q=KRAFTWERK');
    assert.equal(await page.title(), 'Suche: KRAFTWERK – Das Board');
    const results = page.locator('.search-results > li');
    assert.equal(await results.count(), 20);
    assert.equal(await page.locator('.search-results mark').first().textContent(), 'Kraftwerk');
    await page.getByRole('link', { name: 'Ältere →' }).click();
    await page.getByRole('heading', { level: 1, name: 'Suche: KRAFTWERK' }).waitFor();
    await page.locator('.search-results mark').getByText('kraftwerk', { exact: true }).waitFor(); // "Balkonkraftwerk", marked inside the compound
    assert.equal(new URL(page.url()).searchParams.get('seite'), '2');
    assert.equal(await results.count(), 2);

    await page.getByRole('searchbox', { name: 'Suchbegriff' }).fill('Quittengelee');
    await page.getByRole('button', { name: 'Suchen', exact: true }).last().click();
    await page.getByText('Nichts gefunden für „Quittengelee“.').waitFor();
    await page.getByText('Ein Wortteil genügt').waitFor();
    // Earlier page loads' impressions are flushed first, so only /suche could change the count.
    flushImpressions(t.board.app.services);
    const impressions = t.board.app.services.db.value('SELECT count(*) FROM daily_stats');
    await openBoard(page, t.board, '/suche?q=Kraftwerk');
    flushImpressions(t.board.app.services);
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM daily_stats'), impressions);
  });

  test('a search marks the other German spelling of a word too, as the server found it', async () => {
    await post(t.members.Anna, 'Die Straße am Fluss ist gesperrt.');
    const { page } = await t.newPage();
    await openBoard(page, t.board, '/suche?q=strasse');
    await page.getByRole('heading', { level: 1, name: 'Suche: strasse' }).waitFor();
    assert.deepEqual(await page.locator('.search-results mark').allTextContents(), ['Straße']);
  });

  test('the badge counts unread notifications, refreshes once a minute while visible, and the page marks them read', async () => {
    const { page, recorder } = await t.newPage({ as: t.members.Anna });
    await page.clock.install();
    const top = await post(t.members.Anna, 'Wer kommt mit ins Kino?');
    await openBoard(page, t.board, '/');
    const link = page.locator('#nav a.notify-link');
    await link.waitFor();
    assert.equal(await link.getAttribute('aria-label'), 'Benachrichtigungen');
    await post(t.members.Bert, 'Ich komme mit!', top);
    await post(t.members.Bert, 'Frag auch @anna, sagt Bert.');
    const asked = () => recorder.requests.filter((url) => url.endsWith('/api/user/notifications/unread')).length;
    const before = asked();
    await page.evaluate("window.dispatchEvent(new Event('focus'))");
    await page.clock.runFor(30_000);
    assert.equal(asked(), before, 'not more often than once a minute');
    await page.clock.runFor(31_000);
    await page.locator('#nav a[aria-label="Benachrichtigungen: 2 ungelesen"]').waitFor();
    assert.equal(await page.locator('.notify-count').textContent(), '2');

    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Benachrichtigungen' }).waitFor();
    const items = page.locator('.notification-list > li');
    assert.equal(await items.count(), 2);
    await items.first().getByText('hat dich erwähnt').waitFor();
    await items.nth(1).getByText('hat dir geantwortet').waitFor();
    await items.nth(1).getByText('Ich komme mit!').waitFor();
    await page.locator('#nav a[aria-label="Benachrichtigungen"]').waitFor();
    assert.equal(await page.locator('.notify-count').isHidden(), true);
    assert.deepEqual((await t.members.Anna.get('/api/user/notifications/unread')).body, { count: 0 });

    await page.getByText('Als Feed abonnieren').click();
    await page.getByRole('button', { name: 'Feed-Adresse erzeugen' }).click();
    const url = await page.getByLabel('Deine geheime Feed-Adresse').inputValue();
    assert.match(url, /\/n\/[\w-]{43}\.atom$/);
    assert.equal((await t.board.client().get(url.slice(t.board.config.origin.length))).status, 200);
  });

  t.testCleanRecords();
});
