import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { hangBoundMs } from './hang-bound.ts';

/**
 * The browser windows the browser suites work in: a context (its own cookies and storage) with its
 * page, recording what it requests. A suite's windows go back to a pool of the browser when the
 * suite ends, and a later suite of the process gets one of them wiped instead of a new one: a new
 * page costs Chromium a renderer process and a cold start, about three page loads of CPU.
 */

/** What a browser context did: every request URL, CSP complaints and uncaught page errors. */
export interface Recorder {
  requests: string[];
  cspViolations: string[];
  pageErrors: string[];
}

/** The window of a context: 1280 × 900 and light unless said otherwise. */
export interface WindowOptions {
  width?: number;
  height?: number;
  colorScheme?: 'light' | 'dark';
  /** false: the page's scripts do not run (the server-drawn pages, issue 32). */
  javaScriptEnabled?: boolean;
}

/** Where a context's events go: its recorder, swapped for a fresh one each time the window is lent. */
interface Recording {
  recorder: Recorder;
}

const newRecorder = (): Recorder => ({ requests: [], cspViolations: [], pageErrors: [] });

async function recordedContext(
  browser: Browser,
  options: WindowOptions,
  recording: Recording,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    locale: 'de-DE',
    timezoneId: 'Europe/Berlin',
  });
  context.setDefaultTimeout(hangBoundMs);
  context.on('request', (request) => recording.recorder.requests.push(request.url()));
  context.on('page', (page) => watchPage(page, recording));
  return context;
}

function watchPage(page: Page, recording: Recording): void {
  page.on('console', (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text()))
      recording.recorder.cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => recording.recorder.pageErrors.push(error.message));
}

/** A fresh context (its own cookies) that records every request its pages make; never pooled. */
export async function newRecordedContext(
  browser: Browser,
  options: WindowOptions = {},
): Promise<{ context: BrowserContext; recorder: Recorder }> {
  const recording = { recorder: newRecorder() };
  return { context: await recordedContext(browser, options, recording), recorder: recording.recorder };
}

/** A window lent to a suite. */
export interface LentWindow {
  page: Page;
  context: BrowserContext;
  recorder: Recorder;
}

interface PooledWindow extends Recording, LentWindow {
  /** Whose pool it goes back to. */
  browser: Browser;
  javaScriptEnabled: boolean;
  /** Opens the pool's own DevTools session on the page, for what playwright cannot reset (unmarked). */
  openDevtools: () => Promise<CDPSession>;
  /** Set when the lender changed something that outlives a page load and cannot be undone (an init script, a fake clock). */
  marked: boolean;
}

const pools = new WeakMap<Browser, PooledWindow[]>();
const lent = new WeakMap<Page, PooledWindow>();

/** Every context the pool keeps for `browser`: releaseChromium closes the others. */
export function pooledContexts(browser: Browser): Set<BrowserContext> {
  return new Set((pools.get(browser) ?? []).map((window) => window.context));
}

/**
 * A window for one suite: the last one given back that fits, wiped (scripts on or off are a
 * context's, the rest is set on the page), else a new one.
 */
export async function lendWindow(browser: Browser, options: WindowOptions = {}): Promise<LentWindow> {
  const javaScriptEnabled = options.javaScriptEnabled ?? true;
  const pool = pools.get(browser) ?? [];
  pools.set(browser, pool);
  for (;;) {
    const index = pool.findLastIndex((window) => window.javaScriptEnabled === javaScriptEnabled);
    if (index < 0) break;
    const window = pool.splice(index, 1)[0]!;
    try {
      await window.page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
      await window.page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
    } catch {
      await window.context.close().catch(() => {}); // gone while pooled (a crashed renderer): the next, or a new one
      continue;
    }
    window.recorder = newRecorder();
    lent.set(window.page, window);
    return window;
  }
  const recording = { recorder: newRecorder() };
  const context = await recordedContext(browser, options, recording);
  const page = await context.newPage();
  const newSession = context.newCDPSession.bind(context);
  const window: PooledWindow = Object.assign(recording, {
    browser,
    page,
    context,
    javaScriptEnabled,
    openDevtools: () => newSession(page),
    marked: false,
  });
  markOnLastingChange(window);
  lent.set(page, window);
  return window;
}

/**
 * Gives a suite's window back: wiped of everything its lender left (the page, cookies, storage,
 * cache, history, permissions, routes, listeners), so the next lender finds it as new; closed
 * instead when that cannot be done.
 */
export async function giveBack(page: Page): Promise<void> {
  const window = lent.get(page);
  if (!window) return;
  lent.delete(page);
  const pool = pools.get(window.browser);
  const reusable =
    pool && window.browser.isConnected() && !page.isClosed() && !window.marked && window.context.pages().length === 1;
  if (reusable && (await wiped(window))) pool.push(window);
  else await window.context.close().catch(() => {});
}

/** Everything a lender can leave in a window, undone; false when a step failed (the window is then closed). */
async function wiped(window: PooledWindow): Promise<boolean> {
  try {
    const { page, context } = window;
    const origins = new Set(
      window.recorder.requests.filter((url) => url.startsWith('http')).map((url) => new URL(url).origin),
    );
    await page.removeAllListeners(); // the lender's, and the pool's own, put back below
    watchPage(page, window);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await page.goto('about:blank');
    await context.clearCookies();
    await context.clearPermissions();
    const devtools = await window.openDevtools();
    for (const origin of origins) await devtools.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
    await devtools.send('Network.clearBrowserCache');
    await devtools.send('Page.resetNavigationHistory');
    await devtools.detach();
    await page.emulateMedia({
      media: null,
      colorScheme: null,
      reducedMotion: null,
      forcedColors: null,
      contrast: null,
    });
    context.setDefaultTimeout(hangBoundMs);
    page.setDefaultTimeout(hangBoundMs);
    page.setDefaultNavigationTimeout(hangBoundMs);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a lender may do to a context or page that outlives a page load and has no undo in
 * playwright: the window is then closed when given back, not lent again.
 */
const lastingOnContext = [
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'newCDPSession',
  'setExtraHTTPHeaders',
  'setGeolocation',
  'setHTTPCredentials',
  'setOffline',
  'routeFromHAR',
  'routeWebSocket',
] as const;
const lastingOnPage = [
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'setExtraHTTPHeaders',
  'routeFromHAR',
  'routeWebSocket',
] as const;
const lastingOnClock = [
  'install',
  'fastForward',
  'pauseAt',
  'resume',
  'runFor',
  'setFixedTime',
  'setSystemTime',
] as const;

function markOnLastingChange(window: PooledWindow): void {
  const mark = <T extends object>(target: T, names: readonly string[]) => {
    for (const name of names) {
      const original = (target as Record<string, unknown>)[name];
      if (typeof original !== 'function') continue;
      (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
        window.marked = true;
        return original.apply(target, args);
      };
    }
  };
  mark(window.context, lastingOnContext);
  mark(window.page, lastingOnPage);
  mark(window.context.clock, lastingOnClock);
}
