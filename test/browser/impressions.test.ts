import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { impressionsSoFar } from '../helpers/atom.ts';
import { eventually, post } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('impression browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Page views in Debian's Chromium (docs/API.md "What counts"): on the board alone a page load
 * counts by its GET and sends no beacon; with BOARD_IMPRESSION_BEACON=1 (a cache the board cannot
 * see) the page's beacon counts instead: with JavaScript the front end's POST /api/impression,
 * without it the page's noscript image. test/deploy/nginx-cache.test.ts loads a page through nginx.
 */
describe('page views count by their GET in a real browser (the default)', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ members: ['Leserin'] });
  const beacons = (requests: string[]) => requests.filter((url) => new URL(url).pathname === '/api/impression');

  test('a page load counts one, its scripts and API calls none, no beacon; moving inside the front end counts nothing', async () => {
    const pid = await post(t.members.Leserin, 'Ein Beitrag zum Lesen.');
    const { page, recorder } = await t.newPage();
    const before = impressionsSoFar(t.board);
    await openBoard(page, t.board, '/');
    assert.equal(impressionsSoFar(t.board), before + 1);
    await openBoard(page, t.board, `/e/${pid}`);
    await openBoard(page, t.board, '/login');
    assert.equal(impressionsSoFar(t.board), before + 2);
    await page.getByRole('link', { name: 'Neueste' }).first().click();
    await page.getByRole('link', { name: 'Leserin' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Leserin' }).waitFor();
    assert.equal(impressionsSoFar(t.board), before + 2, 'views drawn by the front end load no page');
    assert.deepEqual(beacons(recorder.requests), [], 'the pages carry no beacon');
  });

  test('without JavaScript a page load counts once too', async () => {
    const { page, recorder } = await t.newPage({ javaScriptEnabled: false });
    const before = impressionsSoFar(t.board);
    assert.equal((await page.goto(`${t.board.url}/u/Leserin`))?.status(), 200);
    assert.equal(impressionsSoFar(t.board), before + 1);
    assert.deepEqual(beacons(recorder.requests), []);
  });

  t.testCleanRecords();
});

describe('with BOARD_IMPRESSION_BEACON=1 the beacon counts, with and without JavaScript', {
  skip: skipWithoutChromium,
}, () => {
  const t = useBrowserBoard({ env: { BOARD_IMPRESSION_BEACON: '1' }, members: ['Zählerin'] });

  /** The beacons the board has answered so far (its request log: the front end's fetch is `keepalive`, which the page's events do not show). */
  const beacons = (method: 'POST' | 'GET') =>
    t.board.logs.filter((line) => line.startsWith(`${method} /api/impression 200`)).length;

  /** Opens a path in the page and waits until the board has answered its beacon. */
  async function openCounted(page: Page, path: string) {
    const sent = beacons('POST');
    await openBoard(page, t.board, path);
    await eventually(`the beacon of ${path}`, () => beacons('POST') === sent + 1);
  }

  test('each page load sends one beacon; the board counts the pages that count; moving inside the front end sends none', async () => {
    const pid = await post(t.members.Zählerin, 'Ein Beitrag zum Zählen.');
    const { page } = await t.newPage();
    const before = impressionsSoFar(t.board);
    await openCounted(page, '/');
    assert.equal(impressionsSoFar(t.board), before + 1);
    await openCounted(page, '/login');
    assert.equal(impressionsSoFar(t.board), before + 1);
    await openCounted(page, `/e/${pid}`);
    assert.equal(impressionsSoFar(t.board), before + 2);
    // A link inside the front end draws another view without loading a page: no beacon.
    const sent = beacons('POST');
    await page.getByRole('link', { name: 'Zählerin' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Zählerin' }).waitFor();
    await openCounted(page, '/stats'); // a full load after it: its beacon is the only one
    assert.equal(beacons('POST'), sent + 1);
    assert.equal(impressionsSoFar(t.board), before + 2);
  });

  test("without JavaScript the page's noscript image counts the page, once", async () => {
    const context = await t.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const before = impressionsSoFar(t.board);
      const [images, posts] = [beacons('GET'), beacons('POST')];
      const pixel = page.waitForResponse((answer) => new URL(answer.url()).pathname === '/api/impression');
      await page.goto(`${t.board.url}/u/Z%C3%A4hlerin`);
      assert.equal((await pixel).headers()['content-type'], 'image/gif');
      await eventually('the noscript image', () => beacons('GET') === images + 1);
      assert.equal(impressionsSoFar(t.board), before + 1);
      assert.equal(beacons('POST'), posts, 'no script ran');
    } finally {
      await context.close();
    }
  });

  t.testCleanRecords();
});
