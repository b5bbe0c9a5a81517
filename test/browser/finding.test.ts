import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { flushImpressions } from '../../lib/impressions.ts';
import { limitsOff, password, post, startBoard, type Client, type TestBoard } from '../helpers.ts';
import {
  assertCleanConsole, assertOnlyBoardRequests, launchChromium, newRecordedContext, openBoard, skipWithoutChromium, type Recorder,
} from './browser-helpers.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('finding browser tests', { skip: skipWithoutChromium }, () => {});

/** Search, the notification badge and the notifications page in Debian's Chromium (issue 15). */
describe('search and notifications in a real browser', { skip: skipWithoutChromium }, () => {
  let board: TestBoard;
  let browser: Browser;
  const recorders: Recorder[] = [];
  const clients: Record<string, Client> = {};

  async function browserFor(client?: Client): Promise<{ page: Page; recorder: Recorder }> {
    const { context, recorder } = await newRecordedContext(browser);
    recorders.push(recorder);
    if (client) await context.addCookies([{ name: 'session', value: client.cookie, url: board.url }]);
    return { page: await context.newPage(), recorder };
  }

  before(async () => {
    board = await startBoard(limitsOff);
    browser = await launchChromium();
    for (const name of ['Anna', 'Bert']) clients[name] = await board.client().signUp(name, password);
  });

  after(async () => {
    await browser?.close();
    await board?.close();
  });

  test('the header\'s search field finds compounds, marks the words and pages; an empty result helps', async () => {
    await post(clients.Anna!, 'Unser Balkonkraftwerk läuft.');
    for (let i = 0; i < 21; i++) await post(clients.Bert!, `Kraftwerk Nummer ${i}`);
    const { page } = await browserFor();
    await openBoard(page, board, '/');
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
    flushImpressions(board.app.services);
    const impressions = board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM daily_stats')!.n;
    await openBoard(page, board, '/suche?q=Kraftwerk');
    flushImpressions(board.app.services);
    assert.equal(board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM daily_stats')!.n, impressions);
  });

  test('a search marks the other German spelling of a word too, as the server found it', async () => {
    await post(clients.Anna!, 'Die Straße am Fluss ist gesperrt.');
    const { page } = await browserFor();
    await openBoard(page, board, '/suche?q=strasse');
    await page.getByRole('heading', { level: 1, name: 'Suche: strasse' }).waitFor();
    assert.deepEqual(await page.locator('.search-results mark').allTextContents(), ['Straße']);
  });

  test('the badge counts unread notifications, refreshes once a minute while visible, and the page marks them read', async () => {
    const { page, recorder } = await browserFor(clients.Anna);
    await page.clock.install();
    const top = await post(clients.Anna!, 'Wer kommt mit ins Kino?');
    await openBoard(page, board, '/');
    const link = page.locator('#nav a.notify-link');
    await link.waitFor();
    assert.equal(await link.getAttribute('aria-label'), 'Benachrichtigungen');
    await post(clients.Bert!, 'Ich komme mit!', top);
    await post(clients.Bert!, 'Frag auch @anna, sagt Bert.');
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
    assert.deepEqual((await clients.Anna!.get('/api/user/notifications/unread')).body, { count: 0 });

    await page.getByText('Als Feed abonnieren').click();
    await page.getByRole('button', { name: 'Feed-Adresse erzeugen' }).click();
    const url = await page.getByLabel('Deine geheime Feed-Adresse').inputValue();
    assert.match(url, /\/n\/[\w-]{43}\.atom$/);
    assert.equal((await board.client().get(url.slice(board.config.origin.length))).status, 200);
  });

  test('no request left the board\'s origin and the CSP reported nothing', () => {
    for (const recorder of recorders) {
      assertOnlyBoardRequests(recorder, board);
      assertCleanConsole(recorder);
    }
  });
});
