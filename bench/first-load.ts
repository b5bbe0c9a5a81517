import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startBoard } from '../test/helpers/board.ts';
import { launchChromium } from '../test/helpers/browser.ts';
import { member, post } from '../test/helpers/members.ts';

/**
 * First load on a slow phone (issue 32, docs/API.md "First load"): Chromium with DevTools' slow-4G
 * profile (562.5 ms round trip, 1.44 Mbit/s down, 675 kbit/s up, what Lighthouse applies) and 4×
 * CPU throttling loads / and /e/{pid} of a small seeded board, fresh (no cache), in four forms
 * served side by side through small rewriting proxies:
 *
 * - shell: the page as before issue 32, the empty shell without preloads;
 * - drawn: the server-drawn page without the module preloads;
 * - drawn+preload: the page as it is now;
 * - drawn, no JS: the drawn page with scripts off, the bound of any "enhance in place" (it paints
 *   the same HTML and never draws again).
 *
 * Per load: first contentful paint, largest contentful paint, cumulative layout shift, and time to
 * interactive as the moment the front end has drawn its view and listens (html[data-ready]), plus
 * the requests made, the bytes on the wire, and whether the front end replaced the server's view
 * (drew the page again). Medians of BENCH_ROUNDS (default 3) interleaved rounds; BENCH_FORMS picks
 * forms. Run: `node --import tsx bench/first-load.ts`; it prints a Markdown table for bench/results.md.
 */

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const slow4g = { latency: 562.5, downloadThroughput: (1474.56 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 };

type Variant = 'shell' | 'drawn' | 'drawn+preload' | 'drawn, no JS';
const allVariants: Variant[] = ['shell', 'drawn', 'drawn+preload', 'drawn, no JS'];
/** BENCH_FORMS=drawn+preload (a comma-separated list) measures only those forms. */
const variants = process.env.BENCH_FORMS
  ? allVariants.filter((v) => process.env.BENCH_FORMS!.split(',').includes(v))
  : allVariants;

/** The page as the variant serves it: preloads dropped and (shell) the content taken out of <main>. */
function rewrite(variant: Variant, page: string): string {
  let out = page;
  if (variant === 'shell' || variant === 'drawn') out = out.replace(/\s*<link rel="modulepreload"[^>]*>/g, '');
  if (variant === 'shell')
    out = out.replace(
      /(<main class="main" id="main" tabindex="-1">)[\s\S]*(<\/main>)/,
      '$1<noscript><p>Das Board braucht JavaScript.</p></noscript>$2',
    );
  return out;
}

/** A proxy to the board that rewrites its HTML pages for one variant and passes everything else. */
function proxy(target: URL, variant: Variant): Promise<Server> {
  const server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const isHtml = /^text\/html/.test(answer.headers['content-type'] ?? '');
        if (!isHtml) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.from(rewrite(variant, Buffer.concat(chunks).toString('utf8')));
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': body.length });
          res.end(body);
        });
      },
    );
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Load {
  fcp: number;
  lcp: number;
  cls: number;
  tti: number;
  requests: number;
  /** Bytes on the wire (headers and bodies as sent). */
  bytes: number;
  /** 1 when the front end replaced the server's view (drew the page a second time), else 0. */
  redrawn: number;
}

async function load(browser: Browser, url: string, variant: Variant): Promise<Load> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 915 },
    locale: 'de-DE',
    timezoneId: 'Europe/Berlin',
    javaScriptEnabled: variant !== 'drawn, no JS',
  });
  // Runs before the page's own scripts (and outside its CSP): the time the front end says it is ready.
  // The server's view is marked once parsed, before the module scripts run (readyState
  // "interactive" comes first): whether the same node is still there says if the page was drawn again.
  await context.addInitScript({
    content: `new MutationObserver(() => {
      if (document.documentElement?.dataset.ready === 'true' && window.readyAt === undefined) window.readyAt = performance.now();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-ready'] });
    document.addEventListener('readystatechange', () => {
      const view = document.querySelector('main .view');
      if (document.readyState === 'interactive' && view) view.drawnByServer = true;
    });`,
  });
  const page = await context.newPage();
  let requests = 0;
  page.on('request', () => requests++);
  const cdp = await context.newCDPSession(page);
  let bytes = 0;
  cdp.on('Network.loadingFinished', (event) => {
    bytes += event.encodedDataLength;
  });
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...slow4g });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  if (variant !== 'drawn, no JS') await page.locator('html[data-ready="true"]').waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500); // the last layout shifts and paints are reported
  // Read over CDP, so it works with the page's scripts off too; there no observer or timer runs,
  // so only the paint entries are read (the drawn page's largest paint is its first).
  const expression =
    variant === 'drawn, no JS'
      ? `({ fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN, lcp: NaN, cls: NaN, tti: NaN, redrawn: 0 })`
      : `(async () => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN;
      const list = (type) => new Promise((resolve) => {
        const seen = [];
        new PerformanceObserver((l) => seen.push(...l.getEntries())).observe({ type, buffered: true });
        setTimeout(() => resolve(seen), 50);
      });
      const lcps = await list('largest-contentful-paint');
      const shifts = await list('layout-shift');
      return {
        fcp,
        lcp: lcps.at(-1)?.startTime ?? NaN,
        cls: shifts.filter((s) => !s.hadRecentInput).reduce((sum, s) => sum + s.value, 0),
        tti: window.readyAt ?? NaN,
        redrawn: document.querySelector('main .view')?.drawnByServer ? 0 : 1,
      };
    })()`;
  const { result } = await cdp.send('Runtime.evaluate', { returnByValue: true, awaitPromise: true, expression });
  await context.close();
  return { ...(result.value as Omit<Load, 'requests' | 'bytes'>), requests, bytes };
}

/** The median of the values that were measured (a load may report none: null from the page). */
function median(values: (number | null)[]): number {
  const measured = values.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v)).sort((a, b) => a - b);
  if (measured.length === 0) return NaN;
  const mid = Math.floor(measured.length / 2);
  return measured.length % 2 ? measured[mid]! : (measured[mid - 1]! + measured[mid]!) / 2;
}

async function main() {
  const board = await startBoard({ BOARD_LIMITS: '0' });
  const anna = await member(board, 'Anna');
  const bert = await member(board, 'Bert');
  let thread = 0;
  for (let i = 0; i < 20; i++) {
    const pid = await post(
      i % 2 ? anna : bert,
      `Thema ${i}: ${'Ein Satz über den Wochenmarkt und das Wetter. '.repeat(3)}`,
    );
    for (let r = 0; r < 5; r++)
      await post(r % 2 ? bert : anna, `Antwort ${r} auf Thema ${i}, mit etwas Text dazu.`, pid);
    thread = pid;
  }
  const proxies = new Map<Variant, Server>();
  for (const variant of variants) proxies.set(variant, await proxy(new URL(board.url), variant));
  const browser = await launchChromium();
  const results = new Map<string, Load[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const path of ['/', `/e/${thread}`]) {
        for (const variant of variants) {
          const port = (proxies.get(variant)!.address() as AddressInfo).port;
          const key = `${path === '/' ? '/' : '/e/{pid}'}\t${variant}`;
          const one = await load(browser, `http://127.0.0.1:${port}${path}`, variant);
          results.set(key, [...(results.get(key) ?? []), one]);
          console.error(`round ${round + 1} ${key}: ${JSON.stringify(one)}`);
        }
      }
    }
  } finally {
    await browser.close();
    for (const server of proxies.values()) server.close();
    await board.close();
  }
  const ms = (n: number) => (Number.isNaN(n) ? '–' : `${Math.round(n).toLocaleString('en')} ms`);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log('| page | form | FCP | LCP | CLS | interactive | requests | bytes | drawn again |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [key, loads] of results) {
    const [page, variant] = key.split('\t');
    const noJs = variant === 'drawn, no JS';
    console.log(
      `| ${page} | ${variant} | ${ms(median(loads.map((l) => l.fcp)))} | ${noJs ? '–' : ms(median(loads.map((l) => l.lcp)))} | ${noJs ? '–' : median(loads.map((l) => l.cls)).toFixed(3)} | ${noJs ? '–' : ms(median(loads.map((l) => l.tti)))} | ${median(loads.map((l) => l.requests))} | ${kb(median(loads.map((l) => l.bytes)))} | ${noJs ? '–' : `${loads.filter((l) => l.redrawn).length}/${loads.length}`} |`,
    );
  }
}

await main();
