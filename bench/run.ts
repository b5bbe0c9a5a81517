import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  basePort, boardLimits, connections, dataRoot, formBody, formHeaders, load, root, row, rssMb, seconds, startBoard, stop, warmUp, type Row,
} from './harness.ts';
import { limitCostLines, measureLimitCosts } from './limits.ts';
import { benchPassword, benchSessionToken, benchUsername, hotThreadPid, seedBoard } from './seed.ts';

/**
 * `make bench`: seeds boards of 10k, 100k and 1M entries, measures a bare node:http baseline
 * in the same run, loads the real server (its own process, BOARD_TRUST_PROXY=1, each
 * connection its own X-Forwarded-For address so per-IP limits stay on) with autocannon, and
 * prints a markdown table that is also written to bench/results.md. The server runs with
 * BOARD_LIMITS=0 (the abuse limits off: a thousand connections write faster than people do;
 * SPEC's per-address limits stay on), or with BENCH_LIMITS when set; the report says which. The
 * limits' own cost per request is measured apart (bench/limits.ts).
 */
const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);

async function multipartImage(): Promise<{ body: Buffer; type: string }> {
  const jpeg = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 90, g: 140, b: 200 } } }).jpeg().toBuffer();
  const boundary = 'benchboundary7d9f';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nEin Bild\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    jpeg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

async function seed(size: number): Promise<string> {
  const dir = join(dataRoot, String(size));
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const stats = await seedBoard(join(dir, 'board.db'), { entries: size });
  console.error(`seeded ${size} entries in ${((performance.now() - started) / 1000).toFixed(1)} s (max depth ${stats.max_depth})`);
  return dir;
}

async function measureFullBoard(size: number, rows: Row[]): Promise<{ startupMs: number; rss: number; baselineRps: number }> {
  const dir = await seed(size);
  const board = await startBoard(dir, basePort);
  const sample = await (await fetch(`${board.url}/api/entry/feed/0`)).text();
  writeFileSync(join(dir, 'feed-sample.json'), sample);

  // The baseline runs while the board idles, on its own port and process.
  const baseline = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline.ts', join(dir, 'feed-sample.json'), String(basePort + 1)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => baseline.stdout!.once('data', r));
  await warmUp(`http://127.0.0.1:${basePort + 1}`, ['/']);
  const base = await load(`http://127.0.0.1:${basePort + 1}`, { path: '/' });
  await stop(baseline);
  rows.push(row('baseline (bare node:http, feed-sized JSON)', size, base));
  const baselineRps = base.requests.average;

  const url = board.url;
  await warmUp(url, ['/api/entry/feed/0', `/api/entry/${hotThreadPid}/thread`]);
  const users = 1000;
  const cases: [string, Parameters<typeof load>[1]][] = [
    ['feed page 0', { path: '/api/entry/feed/0' }],
    ['feed page 50', { path: '/api/entry/feed/50' }],
    [`thread (${hotThreadPid}, 100 replies)`, { path: `/api/entry/${hotThreadPid}/thread` }],
    ['vote tally', { path: '/api/entry/12345/votes' }],
    ['user feed', { path: `/api/u/${benchUsername(7)}/feed/0` }],
    ['page / (counts an impression)', { path: '/' }],
    ['create entry (text, logged in)', { path: '/api/entry/create', method: 'POST', setup: (c, i) => c.setHeadersAndBody(formHeaders(i % users + 1), formBody({ content: `Bench-Beitrag von Verbindung ${i}`, reply_to: String(1000 + i) })) }],
    ['vote (logged in)', { path: '/api/entry/4242/vote', method: 'POST', setup: (c, i) => c.setHeadersAndBody(formHeaders(i % users + 1), formBody({ mode: 'yes' })) }],
    ['login (scrypt N=2^17)', { path: '/api/auth/login', method: 'POST', setup: (c, i) => c.setHeadersAndBody({ 'content-type': 'application/x-www-form-urlencoded' }, formBody({ user: benchUsername(2000 + i), pass: benchPassword })) }],
  ];
  for (const [name, options] of cases) {
    const result = await load(url, options);
    rows.push({ ...row(name, size, result), ratio: result.requests.average / baselineRps });
  }

  // Mixed: feed reads at full speed while creates run at 500/s, image posts at 5/s and logins at 2/s.
  const image = await multipartImage();
  const [feed, creates, images, logins] = await Promise.all([
    load(url, { path: '/api/entry/feed/0' }),
    load(url, { path: '/api/entry/create', method: 'POST', connections: 10, overallRate: 500, setup: (c, i) => c.setHeadersAndBody(formHeaders(i + 100), formBody({ content: 'Gemischte Last', reply_to: String(500 + i) })) }),
    load(url, { path: '/api/entry/create', method: 'POST', connections: 2, overallRate: 5, setup: (c, i) => c.setHeadersAndBody({ 'content-type': image.type, cookie: `session=${benchSessionToken(i + 300)}` }, image.body) }),
    load(url, { path: '/api/auth/login', method: 'POST', connections: 2, overallRate: 2, setup: (c, i) => c.setHeadersAndBody({ 'content-type': 'application/x-www-form-urlencoded' }, formBody({ user: benchUsername(5000 + i), pass: benchPassword })) }),
  ]);
  rows.push({ ...row('mixed: feed page 0 reads', size, feed), ratio: feed.requests.average / baselineRps });
  rows.push(row('mixed: creates at 500/s', size, creates));
  rows.push(row('mixed: image posts at 5/s', size, images));
  rows.push(row('mixed: logins at 2/s', size, logins));

  // "After the run": let requests still in flight (a login holds 128 MiB while it hashes) finish.
  await new Promise((r) => setTimeout(r, 2000));
  const rss = rssMb(board.proc.pid!);
  await stop(board.proc);
  // Start-up is measured on a second, cold start of the same database.
  const again = await startBoard(dir, basePort);
  await stop(again.proc);
  return { startupMs: again.startupMs, rss, baselineRps };
}

async function measureGrowth(size: number, rows: Row[], baselineRps: number): Promise<void> {
  const dir = await seed(size);
  const board = await startBoard(dir, basePort + 2);
  await warmUp(board.url, ['/api/entry/feed/0', `/api/entry/${hotThreadPid}/thread`]);
  for (const [name, path] of [['feed page 0', '/api/entry/feed/0'], [`thread (${hotThreadPid}, 100 replies)`, `/api/entry/${hotThreadPid}/thread`]] as const) {
    const result = await load(board.url, { path });
    rows.push({ ...row(name, size, result), ratio: result.requests.average / baselineRps });
  }
  await stop(board.proc);
}

function table(rows: Row[]): string {
  const lines = ['| case | entries | req/s | p50 ms | p99 ms | × baseline | errors |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.size.toLocaleString('en')} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50} | ${r.p99} | ${r.ratio === undefined ? '' : r.ratio.toFixed(2)} | ${r.errors} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const largest = Math.max(...sizes);
  const full = await measureFullBoard(largest, rows);
  for (const size of sizes.filter((s) => s !== largest)) await measureGrowth(size, rows, full.baselineRps);

  const feedAt = (size: number) => rows.find((r) => r.size === size && r.name === 'feed page 0')?.rps;
  const smallest = Math.min(...sizes);
  const growth = feedAt(smallest) && feedAt(largest) ? feedAt(largest)! / feedAt(smallest)! : NaN;
  const machine = `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const report = [
    `# Benchmark results`,
    '',
    `${new Date().toISOString().slice(0, 10)} on ${machine}; autocannon, ${connections} connections, ${seconds} s per case; `
      + `the server with BOARD_LIMITS=${boardLimits}.`,
    '',
    table(rows),
    '',
    `- server RSS after the run at ${largest.toLocaleString('en')} entries: ${full.rss.toFixed(0)} MB`,
    `- start-up with a ${largest.toLocaleString('en')}-entry database, spawn to first answered request: ${full.startupMs.toFixed(0)} ms`,
    `- feed page 0 at ${largest.toLocaleString('en')} vs ${smallest.toLocaleString('en')} entries: ${growth.toFixed(2)} ×`,
    '',
    'The abuse limits\' own cost (bench/limits.ts: counters in SQLite, file database in WAL mode, 20,000 requests over 5,000 accounts and addresses):',
    '',
    ...limitCostLines(await measureLimitCosts()),
    '',
  ].join('\n');
  console.log(report);
  writeFileSync(join(root, 'bench', 'results.md'), report);
}

await main();
