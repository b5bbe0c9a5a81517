import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { imageFixture, limitsOff, member, startBoard, type Client, type TestBoard } from '../helpers.ts';
import {
  assertCleanConsole,
  newRecordedContext,
  releaseChromium,
  sharedChromium,
  skipWithoutChromium,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('media browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Issue 28, finding 4, in a real browser: a media file opened directly is an image document that
 * the media policy lets Chromium draw as it always does, and a page planted in the media folder
 * never runs.
 */
describe('media files opened directly in Chromium', { skip: skipWithoutChromium }, () => {
  let board: TestBoard;
  let browser: Browser;
  let anna: Client;

  before(async () => {
    board = await startBoard(limitsOff);
    browser = await sharedChromium();
    anna = await member(board, 'Anna');
  });

  after(async () => {
    await releaseChromium(browser);
    await board?.close();
  });

  test("an entry image shows whole, centred by the browser's own viewer, and the policy reports nothing", async () => {
    const created = await anna.postMultipart('/api/entry/create', { content: 'Bild' }, [
      { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png', width: 64, height: 48 }) },
    ]);
    assert.equal(created.status, 201, created.text);
    const { context, recorder } = await newRecordedContext(browser);
    try {
      const page = await context.newPage();
      const answer = await page.goto(`${board.url}/static/media/${created.body.filepath}`);
      assert.equal(answer?.status(), 200);
      assert.deepEqual(
        await page.evaluate(
          '(() => { const img = document.querySelector("img"); return [img.naturalWidth, img.naturalHeight]; })()',
        ),
        [64, 48],
      );
      const box = await page.locator('img').boundingBox();
      assert.ok(box && box.x > 0, `centred by the viewer's inline style (x ${box?.x})`);
      assertCleanConsole(recorder);
    } finally {
      await context.close();
    }
  });

  test('a page and an SVG put into the media folder answer 404, and their scripts never run', async () => {
    const media = board.config.mediaDir;
    mkdirSync(join(media, 'a'), { recursive: true });
    mkdirSync(join(media, 'preview'), { recursive: true });
    writeFileSync(
      join(media, 'a', 'x.html'),
      '<!doctype html><title>x</title><script>document.title = "pwned"; fetch("/api/user/info")</script>',
    );
    writeFileSync(
      join(media, 'preview', 'y.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg"><script>document.title = "pwned"</script></svg>',
    );
    const { context, recorder } = await newRecordedContext(browser);
    try {
      const page = await context.newPage();
      for (const path of ['a/x.html', 'preview/y.svg']) {
        const answer = await page.goto(`${board.url}/static/media/${path}`);
        assert.equal(answer?.status(), 404, path);
        assert.notEqual(await page.title(), 'pwned', path);
      }
      assert.deepEqual(
        recorder.requests.filter((url) => url.includes('/api/user/info')),
        [],
        'no script asked who the visitor is',
      );
    } finally {
      await context.close();
    }
  });
});
