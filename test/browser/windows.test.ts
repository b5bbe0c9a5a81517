import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { limitsOff } from '../helpers.ts';
import type { TestBoard } from '../helpers/board.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';
import { childPids } from '../helpers/processes.ts';
import { giveBack, lendWindow, type LentWindow } from '../helpers/windows.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('browser window pool tests', { skip: skipWithoutChromium }, () => {});

/** What a suite would notice of the window's past: what it has stored, remembers and answers. */
async function traces(window: LentWindow, board: TestBoard) {
  const { page, context } = window;
  const before = { cookies: await context.cookies(), recorded: window.recorder.requests.length };
  await openBoard(page, board, '/');
  const inPage = (await page.evaluate(`({
    stored: localStorage.length,
    history: history.length,
    width: innerWidth,
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
    notifications: Notification.permission,
  })`)) as Record<string, unknown>;
  const routed = await page.evaluate(`fetch('/api/stats').then((r) => r.status, () => 'refused')`);
  const heardBefore = heardByLastLender;
  const logged = page.waitForEvent('console');
  await page.evaluate(`console.log('heard?')`);
  await logged;
  return { ...before, ...inPage, routed, lastLenderHeard: heardByLastLender - heardBefore };
}

let heardByLastLender = 0;

/** What the last lender leaves behind in a window: each of it has to be gone for the next. */
async function leaveTraces(window: LentWindow, board: TestBoard): Promise<void> {
  const { page, context } = window;
  await openBoard(page, board, '/stats');
  await page.evaluate(`localStorage.setItem('left', 'behind'); history.pushState(null, '', '/left')`);
  await context.addCookies([{ name: 'left', value: 'behind', url: board.url }]);
  await context.grantPermissions(['notifications'], { origin: board.url });
  await page.route('**/api/stats', (route) => route.abort());
  page.on('console', () => heardByLastLender++);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
}

/**
 * The pool of browser windows (test/helpers/windows.ts): a window a suite gives back is lent to the
 * next one only wiped, so it looks to that suite like a new one; a window its lender changed for
 * good is closed instead.
 */
describe('the browser window pool', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff });

  test('a window given back is lent again wiped: no cookie, storage, history, permission, route or listener of the last lender', async () => {
    const fresh = await lendWindow(t.browser);
    const asNew = await traces(fresh, t.board);
    await giveBack(fresh.page);

    const used = await lendWindow(t.browser);
    assert.equal(used.page, fresh.page, 'the same window, not a new one');
    await leaveTraces(used, t.board);
    await giveBack(used.page);

    const again = await lendWindow(t.browser);
    assert.equal(again.page, fresh.page);
    assert.deepEqual(await traces(again, t.board), asNew);
    await giveBack(again.page);
  });

  test('a window with an init script or a fake clock is closed when given back, and the next lender gets a new one', async () => {
    for (const change of [
      (page: Page) => page.context().addInitScript({ content: 'window.changed = true' }),
      (page: Page) => page.clock.install(),
    ]) {
      const changed = await lendWindow(t.browser);
      await change(changed.page);
      await giveBack(changed.page);
      assert.equal(changed.page.isClosed(), true);
      const next = await lendWindow(t.browser);
      assert.notEqual(next.page, changed.page);
      await giveBack(next.page);
    }
  });

  test('a window whose page crashed is closed when given back, and the next lender gets a working one', async () => {
    const crashed = await lendWindow(t.browser);
    await crashed.page.goto('chrome://crash').catch(() => {});
    await giveBack(crashed.page);
    assert.equal(crashed.page.isClosed(), true);
    const next = await lendWindow(t.browser);
    assert.notEqual(next.page, crashed.page);
    await openBoard(next.page, t.board, '/');
    await giveBack(next.page);
  });

  test('windows without scripts are pooled apart from those with', async () => {
    const off = await lendWindow(t.browser, { javaScriptEnabled: false });
    await giveBack(off.page);
    const on = await lendWindow(t.browser);
    assert.notEqual(on.page, off.page);
    assert.equal(await on.page.evaluate('1 + 1'), 2);
    const offAgain = await lendWindow(t.browser, { javaScriptEnabled: false });
    assert.equal(offAgain.page, off.page);
    await giveBack(on.page);
    await giveBack(offAgain.page);
  });

  test("the tests' Chromium keeps a page's frame from one document to the next, and Playwright's own disabled features", async () => {
    await lendWindow(t.browser).then((window) => giveBack(window.page)); // the browser is running
    const launched = childPids(process.pid)
      .map((pid) => (existsSync(`/proc/${pid}`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') : []))
      .filter((argv) => argv.includes('--remote-debugging-pipe'));
    assert.ok(launched.length > 0, 'no Chromium started by this process');
    for (const argv of launched) {
      const switches = argv.filter((arg) => arg.startsWith('--disable-features='));
      const features = (arg: string | undefined) => arg?.split('=')[1]?.split(',') ?? [];
      const playwrights = features(switches[0]); // Playwright's switches come before a launch's own
      const effective = features(switches.at(-1)); // Chromium reads the last one only
      assert.deepEqual(
        playwrights.filter((feature) => !effective.includes(feature)),
        [],
        "Playwright's disabled features the tests' switch leaves out",
      );
      assert.ok(effective.includes('RenderDocument'), effective.join(','));
    }
  });
});
