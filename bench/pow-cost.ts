import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../lib/app.ts';
import { loadConfig } from '../lib/config.ts';
import { powIterations } from '../lib/registration/pow.ts';
import { prepareDataDir } from '../lib/host/folders.ts';

/**
 * What a proof-of-work challenge costs an honest browser (docs/API.md "Proof of work",
 * bench/results.md): Debian's Chromium with 4× CPU throttling (DevTools' "mid-range phone"),
 * solving fresh challenges of the board at each cost of POW_COSTS with the page's own search
 * (static/pow-solve.js) on ONE thread. Why one thread on the page: DevTools throttles pages only
 * (Emulation.setCPUThrottlingRate refuses worker targets), so the page's thread is where 4× holds;
 * the real page splits the search over up to 4 workers, so a phone with several cores is faster.
 * Prints the mean number of counters tried (the work, whatever the machine's load), and the
 * median, the 90th percentile and the maximum time per cost.
 *   node --import tsx bench/pow-cost.ts            POW_COSTS=1000,2000,4000 POW_RUNS=15 POW_THROTTLE=4
 */
const costs = (process.env.POW_COSTS ?? '1000,2000,4000').split(',').map(Number);
const runs = Number(process.env.POW_RUNS ?? 15);
const throttle = Number(process.env.POW_THROTTLE ?? 4);
const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A DevTools-protocol connection with flat sessions. */
async function devtools(url: string) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners: ((method: string, params: Record<string, unknown>, sessionId?: string) => void)[] = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`${message.error.message}`));
      else waiter?.resolve(message.result);
    } else for (const listen of listeners) listen(message.method, message.params, message.sessionId);
  };
  return {
    send<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
      const id = ++nextId;
      socket.send(JSON.stringify({ id, method, params, sessionId }));
      return new Promise((resolve, reject) => pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
    },
    on(listen: (method: string, params: Record<string, unknown>, sessionId?: string) => void) {
      listeners.push(listen);
    },
    close: () => socket.close(),
  };
}

async function measure(cost: number): Promise<{ ms: number; tries: number }[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'board-pow-'));
  const config = loadConfig({ BOARD_DATA: dataDir, PORT: '0', BOARD_POW: String(cost), BOARD_PREVIEW: '0' });
  prepareDataDir(config);
  const app = createApp(config, { log: () => {} });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const profile = mkdtempSync(join(tmpdir(), 'board-pow-chromium-'));
  const browser = spawn(
    chromium,
    ['--headless=new', '--no-sandbox', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let text = '';
      browser.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match) resolve(match[1]!);
      });
      browser.once('exit', () => reject(new Error(`chromium exited: ${text}`)));
    });
    const cdp = await devtools(endpoint);
    const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle }, sessionId);
    await cdp.send('Page.enable', {}, sessionId);
    await cdp.send('Page.navigate', { url: `${origin}/register` }, sessionId);
    await new Promise((r) => setTimeout(r, 2000));
    const runsDone: { ms: number; tries: number }[] = [];
    // One run first, not counted: it loads the module and warms up the page.
    for (let i = -1; i < runs; i++) {
      const result = await cdp.send<{ result: { value: { ms: number; tries: number } } }>(
        'Runtime.evaluate',
        {
          expression: `Promise.all([import('/static/pow-solve.js'), fetch('/api/auth/challenge').then((r) => r.json())])
            .then(async ([m, c]) => { const t = performance.now(); const found = await m.searchCounter(c.parameters, 0, 1);
              return { ms: performance.now() - t, tries: found.counter + 1 }; })`,
          awaitPromise: true,
          returnByValue: true,
        },
        sessionId,
      );
      if (i >= 0) runsDone.push(result.result.value);
    }
    cdp.close();
    return runsDone;
  } finally {
    // Chromium writes to its profile until it has exited: the folder goes after that.
    const exited = browser.exitCode === null ? new Promise((resolve) => browser.once('exit', resolve)) : undefined;
    browser.kill();
    await exited;
    app.server.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

console.log(
  `proof of work in Chromium, ${throttle}× CPU throttling, PBKDF2/SHA-256 × ${powIterations} per counter, ${runs} runs each`,
);
console.log('| BOARD_POW (cost) | mean tries | median s | p90 s | max s |');
console.log('|---|---|---|---|---|');
for (const cost of costs) {
  const measured = await measure(cost);
  const tries = Math.round(measured.reduce((sum, run) => sum + run.tries, 0) / measured.length);
  const sorted = measured.map((run) => run.ms).sort((a, b) => a - b);
  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(
    `| ${cost} | ${tries} | ${s(quantile(sorted, 0.5))} | ${s(quantile(sorted, 0.9))} | ${s(sorted.at(-1)!)} |`,
  );
}
