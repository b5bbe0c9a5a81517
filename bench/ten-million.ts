import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { getPriority, loadavg } from 'node:os';
import { join } from 'node:path';
import { dataRoot, root, rssMb, startBoard, stop } from './harness.ts';
import { cannon, ensureWrk, wrk } from './load.ts';
import { machine } from './run.ts';
import { indexBytes, timeUncached, type Timing } from './search.ts';
import { benchSessionToken, hotThreadPid, seedBoard } from './seed.ts';

/**
 * `make bench-10m` (not in CI; about 10 GB of disk, and with seeding well over half an hour):
 * whether the board stays flat from 1,000,000 to 10,000,000 entries. For each size: seeding time,
 * database and search index size (dbstat), start-up (spawn to first answer), feed page 0 and the
 * hot thread (wrk), creates (autocannon), the server's memory after the run, and then search:
 * bench/search.ts's cases timed in this process without the response cache (the cost of a search
 * nobody asked in a while; one asked again is a cached page like the feed), on the board as the
 * creates left it.
 * - BENCH_10M_SIZES changes the sizes (e.g. 1000000,5000000 when the disk or the time is short).
 * - BENCH_10M_REUSE=1 measures the boards an earlier run seeded (bench/data/<size>) again without
 *   seeding them (10M takes a quarter of an hour and more).
 * - BENCH_10M_SEED_ONLY=1 seeds the boards (keeping those BENCH_10M_REUSE=1 finds) and stops
 *   without measuring: seeding can run at idle priority while the machine is busy, the
 *   measurement later with BENCH_10M_REUSE=1 on a quiet machine.
 * Each seeding leaves its times in bench/data/<size>/seeded.json, which the report shows for
 * reused boards. Writes bench/results-10m.md.
 */
const sizes = (process.env.BENCH_10M_SIZES ?? '1000000,10000000').split(',').map(Number);
const reuse = process.env.BENCH_10M_REUSE === '1';
const seedOnly = process.env.BENCH_10M_SEED_ONLY === '1';
const port = 18_090;
const readLoad = { threads: 2, connections: 64 };

/** How a board was seeded: bench/data/<size>/seeded.json. */
interface Seeded {
  seconds: number;
  /** Entries with their index rows, and the index's merge into one segment ('optimize'). */
  entriesSeconds: number;
  optimizeSeconds: number;
  at: string;
  loadAverage: number;
  nice: number;
}

interface SizeRun {
  size: number;
  seeded?: Seeded;
  dbMiB: number;
  indexMiB: number;
  startupMs: number;
  feed: number;
  thread: number;
  create: number;
  rssMb: number;
  search: Timing[];
}

/** The board of `size` entries: seeded now, or the one an earlier run left when BENCH_10M_REUSE=1. */
async function board(size: number): Promise<{ dir: string; seeded?: Seeded }> {
  const dir = join(dataRoot, String(size));
  const record = join(dir, 'seeded.json');
  if (reuse && existsSync(join(dir, 'board.db'))) {
    return { dir, seeded: existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as Seeded) : undefined };
  }
  mkdirSync(dir, { recursive: true });
  rmSync(record, { force: true }); // a seeding that dies half-way leaves no record of a whole one
  const at = new Date().toISOString();
  const loadAverage = loadavg()[0]!;
  const started = performance.now();
  const stats = await seedBoard(join(dir, 'board.db'), { entries: size });
  const seeded: Seeded = {
    seconds: (performance.now() - started) / 1000,
    entriesSeconds: stats.entries_seconds!,
    optimizeSeconds: stats.optimize_seconds!,
    at,
    loadAverage,
    nice: getPriority(),
  };
  writeFileSync(record, JSON.stringify(seeded));
  console.error(`seeded ${size} entries: ${JSON.stringify(seeded)}`);
  return { dir, seeded };
}

async function measure(size: number, dir: string, seeded: Seeded | undefined): Promise<SizeRun> {
  const dbPath = join(dir, 'board.db');
  const server = await startBoard(dir, port, { BOARD_LIMITS: '0' });
  const result = { size, seeded, dbMiB: statSync(dbPath).size / 2 ** 20, startupMs: server.startupMs } as SizeRun;
  for (const path of ['/api/entry/feed/0', `/api/entry/${hotThreadPid}/thread`])
    await wrk(server.url, path, { ...readLoad, duration: 2 });
  result.feed = (await wrk(server.url, '/api/entry/feed/0', readLoad)).rps;
  result.thread = (await wrk(server.url, `/api/entry/${hotThreadPid}/thread`, readLoad)).rps;
  result.create = (
    await cannon(server.url, {
      path: '/api/entry/create',
      method: 'POST',
      setup: (c, i) =>
        c.setHeadersAndBody(
          {
            'content-type': 'application/x-www-form-urlencoded',
            cookie: `session=${benchSessionToken((i % 1000) + 1)}`,
          },
          new URLSearchParams({
            content: `Zehn Millionen ${i} ${Math.random()}`,
            reply_to: String(1000 + i),
          }).toString(),
        ),
    })
  ).rps;
  result.rssMb = rssMb(server.proc.pid!);
  await stop(server.proc);
  // After the server: reading the whole file (dbstat) first would warm the page cache for its start-up.
  result.search = await timeUncached(dbPath);
  result.indexMiB = indexBytes(dbPath).index / 2 ** 20;
  console.error(JSON.stringify({ ...result, search: undefined }));
  return result;
}

const label = (size: number) => (size >= 1e6 ? `${size / 1e6}M` : `${size / 1e3}k`);
const whole = (n: number) => Math.round(n).toLocaleString('en');
const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function seedLine(r: SizeRun): string {
  const s = r.seeded;
  if (!s) return `- ${r.size.toLocaleString('en')}: seeded by an earlier run that kept no record`;
  return (
    `- ${r.size.toLocaleString('en')}: ${s.seconds.toFixed(0)} s (entries with their index rows ${s.entriesSeconds.toFixed(0)} s, the index's merge into one segment ` +
    `('optimize') ${s.optimizeSeconds.toFixed(0)} s), ${s.at.slice(0, 16).replace('T', ' ')} UTC, load average ${s.loadAverage.toFixed(1)} at the start, nice ${s.nice}`
  );
}

function report(runs: SizeRun[], started: string): string {
  const first = runs[0]!;
  const later = runs.slice(1);
  const ratio = (r: SizeRun, i: number, key: 'p50' | 'p99') =>
    `${(r.search[i]![key] / first.search[i]![key]).toFixed(2)} ×`;
  const searchRatios = (r: SizeRun) => first.search.map((t, i) => r.search[i]!.p50 / t.p50);
  return [
    `# Benchmark results: ${label(first.size)} to ${label(runs.at(-1)!.size)} entries`,
    '',
    `${new Date().toISOString().slice(0, 10)} on ${started}; reads with wrk (${readLoad.threads} threads, ${readLoad.connections} connections), creates with autocannon (50 connections), 10 s each; one worker, BOARD_LIMITS=0. ` +
      "Search: bench/search.ts's cases, each 300 times in the benchmark's process without the response cache (the cost of a search nobody asked in a while; " +
      "one asked again is a cached page like the feed), after the server's run on the same board.",
    '',
    '| entries | seed s | board.db MiB | search index MiB | start-up ms | feed page 0 req/s | thread req/s | creates/s | RSS MB |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.size.toLocaleString('en')} | ${r.seeded ? r.seeded.seconds.toFixed(0) : 'earlier run'} | ${r.dbMiB.toFixed(0)} | ${r.indexMiB.toFixed(0)} | ${r.startupMs.toFixed(0)} ` +
        `| ${whole(r.feed)} | ${whole(r.thread)} | ${whole(r.create)} | ${r.rssMb.toFixed(0)} |`,
    ),
    '',
    ...later.map(
      (r) =>
        `- ${label(r.size)} vs ${label(first.size)}: feed ${(r.feed / first.feed).toFixed(2)} ×, thread ${(r.thread / first.thread).toFixed(2)} ×, ` +
        `creates ${(r.create / first.create).toFixed(2)} ×, search p50 ${Math.min(...searchRatios(r)).toFixed(2)}–${Math.max(...searchRatios(r)).toFixed(2)} × (median ${median(searchRatios(r)).toFixed(2)} ×), ` +
        `start-up ${(r.startupMs / first.startupMs).toFixed(2)} ×, RSS ${(r.rssMb / first.rssMb).toFixed(2)} ×, database ${(r.dbMiB / first.dbMiB).toFixed(1)} ×, search index ${(r.indexMiB / first.indexMiB).toFixed(1)} ×`,
    ),
    '',
    'Seeding (bench/seed.ts, a 2.4 GiB SQLite cache at 10M; the times of the run that seeded each board):',
    '',
    ...runs.map(seedLine),
    '',
    'One search without the response cache, p50 / p99 ms (results on the page):',
    '',
    tableRow([
      'search',
      ...runs.map((r) => label(r.size)),
      ...later.flatMap((r) => [`${label(r.size)}/${label(first.size)} p50`, 'p99']),
    ]),
    tableRow(['---', ...runs.map(() => '---:'), ...later.flatMap(() => ['---:', '---:'])]),
    ...first.search.map((t, i) =>
      tableRow([
        t.name,
        ...runs.map((r) => `${r.search[i]!.p50.toFixed(2)} / ${r.search[i]!.p99.toFixed(2)} (${r.search[i]!.results})`),
        ...later.flatMap((r) => [ratio(r, i, 'p50'), ratio(r, i, 'p99')]),
      ]),
    ),
    '',
  ].join('\n');
}

if (!seedOnly) ensureWrk();
const started = machine();
const runs: SizeRun[] = [];
for (const size of sizes) {
  const { dir, seeded } = await board(size);
  if (!seedOnly) runs.push(await measure(size, dir, seeded));
}
if (!seedOnly) {
  const text = report(runs, started);
  console.log(text);
  writeFileSync(join(root, 'bench', 'results-10m.md'), text);
}
