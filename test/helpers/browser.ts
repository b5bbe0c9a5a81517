import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestBoard } from './board.ts';
import type { Client } from './client.ts';
import { eventually } from './eventually.ts';
import { useBoard, type BoardSetup, type UsedBoard } from './use-board.ts';
import { hangBoundMs } from './hang-bound.ts';
import { closeSharedNow, releaseShared, shared } from './shared.ts';
import { giveBack, lendWindow, pooledContexts, type Recorder, type WindowOptions } from './windows.ts';

export { newRecordedContext, type Recorder, type WindowOptions } from './windows.ts';
export { keepScreenshot, makePng, screenshotDir } from './pictures.ts';

/** The front end in Debian's Chromium, driven by playwright-core: the browser suites' set-up and checks. */

/**
 * Debian's Chromium as .ci/chromium-path chooses it (CHROMIUM_PATH, else the headless shell, else the
 * full browser). Playwright's own browser downloads cannot work offline.
 */
export type ChromiumKind = 'any' | 'desktop';
export const chromiumPath = chosenChromium('any');
/** The full browser, for a suite that needs what the headless shell lacks (notifications). */
export const desktopChromiumPath = chosenChromium('desktop');

function chosenChromium(kind: ChromiumKind): string {
  const script = resolve(import.meta.dirname, '../../.ci/chromium-path');
  try {
    return execFileSync(script, [kind], { encoding: 'utf8' }).trim();
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? '').trim();
  }
}
export const chromiumMissing = !existsSync(chromiumPath);
/** The `skip` option for a browser suite: false, or the reason shown in the test report. */
export const skipWithoutChromium = chromiumMissing ? `Chromium not found at ${chromiumPath}` : false;
/** The same for a suite on the full browser (useBrowserBoard's `desktop`). */
export const skipWithoutDesktopChromium = existsSync(desktopChromiumPath)
  ? false
  : `Chromium's full browser not found at ${desktopChromiumPath} (apt-get install chromium)`;
if (chromiumMissing)
  console.log(
    `browser tests skipped: Chromium not found at ${chromiumPath} (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`,
  );

/**
 * Without these flags Chromium tries to reach Google's services and stalls on a closed network.
 * Playwright adds a fresh temporary --user-data-dir of its own for every launch.
 */
const launchArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** A Chromium of its own, for a program (test/browser/screenshots.ts); a test file uses sharedChromium. */
export async function launchChromium(kind: ChromiumKind = 'any'): Promise<Browser> {
  const executablePath = kind === 'desktop' ? desktopChromiumPath : chromiumPath;
  const disabled = `--disable-features=${await disabledFeatures(executablePath)}`;
  return chromium.launch({ executablePath, args: [...launchArgs, disabled], timeout: hangBoundMs });
}

/**
 * Chromium gives every new document a new frame (its "RenderDocument"): a new compositor whose
 * first frames are rastered and drawn from nothing, about a third of Chromium's CPU for each page
 * load of the suites (bench/results.md). A page cannot tell a kept frame from a new one, so the
 * tests' Chromium keeps it. Chromium reads only the last --disable-features of its command line,
 * so that switch carries Playwright's own list too, read once per process from a Chromium it
 * starts (its command line is shown to DevTools with --enable-automation only).
 */
const ourDisabledFeatures = ['RenderDocument'];
let playwrightsDisabledFeatures: Promise<string[]> | undefined;

async function disabledFeatures(executablePath: string): Promise<string> {
  // A failed read (that Chromium would not start) is not kept: the next launch tries again.
  playwrightsDisabledFeatures ??= readPlaywrightsDisabledFeatures(executablePath).catch((err: unknown) => {
    playwrightsDisabledFeatures = undefined;
    throw err;
  });
  return [...(await playwrightsDisabledFeatures), ...ourDisabledFeatures].join(',');
}

async function readPlaywrightsDisabledFeatures(executablePath: string): Promise<string[]> {
  const probe = await chromium.launch({
    executablePath,
    args: [...launchArgs, '--enable-automation'],
    timeout: hangBoundMs,
  });
  try {
    const session = await probe.newBrowserCDPSession();
    const { arguments: argv } = await session.send('Browser.getBrowserCommandLine');
    const switchValue = argv.findLast((arg) => arg.startsWith('--disable-features='))?.split('=')[1];
    return switchValue ? switchValue.split(',') : [];
  } finally {
    await probe.close();
  }
}

/** The shared.ts name of the process's Chromium of a kind. */
const chromiumName = (kind: ChromiumKind) => `chromium-${kind}`;

/**
 * The process's one Chromium (test/helpers/shared.ts), launched on first use: a start costs more
 * than most browser tests, and a wiped window per page (test/helpers/windows.ts) keeps each
 * test's cookies and storage its own. `desktop`: the full browser, for a suite that needs it,
 * closed when that suite ends (useBrowserBoard). A suite that takes one gives it back with
 * releaseChromium.
 */
export function sharedChromium(kind: ChromiumKind = 'any'): Promise<Browser> {
  return shared(
    chromiumName(kind),
    () => launchChromium(kind),
    (browser) => browser.close(),
    (browser) => browser.isConnected(),
  );
}

/**
 * A suite is done with the shared Chromium: every context it opened closes but the pool's
 * (test/helpers/windows.ts), and the browser too unless a lane keeps it.
 */
export async function releaseChromium(browser: Browser | undefined): Promise<void> {
  const pooled = browser ? pooledContexts(browser) : new Set();
  await Promise.all(
    browser
      ?.contexts()
      .filter((context) => !pooled.has(context))
      .map((context) => context.close()) ?? [],
  );
  await releaseShared();
}

/** Opens a path of the board and waits until the front end has drawn its first view. */
export async function openBoard(page: Page, board: TestBoard, path = '/'): Promise<void> {
  await page.goto(board.url + path);
  await page.locator('html[data-ready="true"]').waitFor();
}

/**
 * Goes to a path of the board the way the back and forward buttons do (the front end's router draws
 * the view, no page load), and waits until the view is drawn. For a test that looks at many pages
 * in one window: a page load fetches every module again and drops the test's own scripts (axe).
 */
export async function showPath(page: Page, path: string): Promise<void> {
  await page.evaluate(
    `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
  );
  await page.locator('html[data-ready="true"] main:not([aria-busy])').waitFor();
}

/** Every request went to the board itself (data: and blob: URLs are the page's own). */
export function assertOnlyBoardRequests(recorder: Recorder, board: TestBoard): void {
  const foreign = recorder.requests.filter(
    (url) => !url.startsWith(`${board.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
  );
  assert.deepEqual(foreign, [], 'requests that left the board');
  assert.ok(recorder.requests.length > 0, 'no request recorded at all');
}

/** No CSP violation was reported and no script threw. */
export function assertCleanConsole(recorder: Recorder): void {
  assert.deepEqual(recorder.cspViolations, [], 'CSP violations');
  assert.deepEqual(recorder.pageErrors, [], 'uncaught errors in the page');
}

/**
 * Polls the JavaScript expression `check` in the page until it is true. Why not
 * page.waitForFunction: it evaluates its predicate again on later polls, outside the one
 * evaluation the board's CSP (no 'unsafe-eval') lets through, and then fails with EvalError
 * (seen in a fresh-clone run; playwright issue #7395, PR #36986). Each page.evaluate is one
 * evaluation of its own, which the CSP allows.
 */
export async function waitInPage(page: Page, what: string, check: string, timeoutMs = hangBoundMs): Promise<void> {
  await eventually(`${what} (in the page)`, async () => Boolean(await page.evaluate(check)), timeoutMs);
}

/** Requests a test holds back: what the page shows while they are in flight, then the real answer. */
export interface HeldRequests {
  /** Resolves once the first request has reached the hold. */
  arrived(): Promise<void>;
  /** How many requests reached the hold so far. */
  readonly count: number;
  /** Lets every held request (and any later one) go on to the board, and stops holding. */
  release(): Promise<void>;
}

/**
 * Holds the page's requests to `url` (a playwright URL glob) until release(): a gate the test
 * controls, so what a page shows while it waits is checked without depending on the machine's speed.
 */
export async function holdRequests(page: Page, url: string): Promise<HeldRequests> {
  let count = 0;
  let arrive!: () => void;
  const first = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const going: Promise<void>[] = [];
  await page.route(url, (route) => {
    count++;
    arrive();
    const goes = gate.then(() => route.continue());
    going.push(goes);
    return goes;
  });
  return {
    arrived: () => first,
    get count() {
      return count;
    },
    async release() {
      open();
      await Promise.all(going); // each held request on its way before the hold goes (playwright would take them over)
      await page.unroute(url);
    },
  };
}

export interface PageOptions extends WindowOptions {
  /** Logged in with this client's session (its cookie); none: a visitor. */
  as?: Client;
}

export interface UsedBrowserBoard<M extends string> extends UsedBoard<M> {
  /** The process's shared Chromium (sharedChromium); the suite's windows go back to its pool when the suite ends. */
  browser: Browser;
  /** Every context newPage made; testCleanRecords checks them all. */
  recorders: Recorder[];
  /**
   * A page in a window of its own (test/helpers/windows.ts: its own cookies, storage and cache, as
   * new), logged in as `options.as` when given.
   */
  newPage(options?: PageOptions): Promise<{ page: Page; context: BrowserContext; recorder: Recorder }>;
  /**
   * The page kept under `name`, opened by newPage on the first ask (with `options`, or what the
   * function gives): for the tests that are not about a first visit, one window of a user that
   * they share instead of a fresh one each. Each such test starts with a page load.
   */
  keptPage(name: string, options?: PageOptions | (() => Promise<PageOptions>)): Promise<Page>;
  /**
   * A test is done with a page newPage gave (not a kept one): its window goes back to the pool
   * now, wiped, instead of at the suite's end (an open board page costs CPU while it stays open).
   */
  giveBack(page: Page): Promise<void>;
  /** Adds the suite's last test: no request left the board and the CSP reported nothing, in any context. */
  testCleanRecords(): void;
}

/**
 * A browser suite's set-up: the shared Chromium (`desktop`: the shared full browser, for what the
 * headless shell lacks), and useBoard's board and members (`setup` as there); the `after` hooks close the suite's browser contexts first, then the board. Call it at
 * the top of the suite's `describe`; read the returned object inside tests and later hooks only
 * (`t.board`, `t.browser`, `t.members.Anna`).
 */
export function useBrowserBoard<const M extends string = never>(
  setup: BoardSetup<M> = {},
  browser: ChromiumKind = 'any',
): UsedBrowserBoard<M> {
  const lentPages: Page[] = [];
  before(async () => {
    used.browser = await sharedChromium(browser);
  });
  after(async () => {
    for (const page of lentPages.splice(0)) await giveBack(page);
    await releaseChromium(used.browser);
    // Few suites need the full browser: kept open in a lane it would idle on, costing CPU the files after it could use.
    if (browser === 'desktop') await closeSharedNow(chromiumName(browser));
  });
  const used = useBoard(setup) as UsedBrowserBoard<M>;
  used.recorders = [];
  used.newPage = async (options = {}) => {
    const { page, context, recorder } = await lendWindow(used.browser, options);
    lentPages.push(page);
    used.recorders.push(recorder);
    if (options.as) await context.addCookies([{ name: 'session', value: options.as.cookie, url: used.board.url }]);
    return { page, context, recorder };
  };
  used.giveBack = async (page) => {
    const index = lentPages.indexOf(page);
    if (index >= 0) lentPages.splice(index, 1);
    await giveBack(page);
  };
  const kept = new Map<string, Promise<Page>>();
  used.keptPage = (name, options) => {
    if (!kept.has(name))
      kept.set(
        name,
        (async () => (await used.newPage(typeof options === 'function' ? await options() : options)).page)(),
      );
    return kept.get(name)!;
  };
  used.testCleanRecords = () => {
    test("no request left the board's origin and the CSP reported nothing", () => {
      for (const recorder of used.recorders) {
        assertOnlyBoardRequests(recorder, used.board);
        assertCleanConsole(recorder);
      }
    });
  };
  return used;
}
