import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { impressionsSoFar } from '../helpers/atom.ts';
import { eventually, post } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('impression browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Page views count through the page's beacon (issue 33: a cache in front answers the pages
 * themselves), in Debian's Chromium: with JavaScript the front end's POST /api/impression, without
 * it the page's noscript image.
 */
describe('page views count in a real browser, with and without JavaScript', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ members: ['Zählerin'] });

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
