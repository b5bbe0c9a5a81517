import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataRoot, root, rssMb, startBoard, stop } from './harness.ts';
import { cannon, ensureWrk, wrk } from './load.ts';
import { machine, seed } from './run.ts';
import { benchSessionToken, hotThreadPid } from './seed.ts';

/**
 * `make bench-10m` (not in CI; about 15 minutes and 5 GB of disk): whether the board stays flat
 * from 1,000,000 to 10,000,000 entries. For each size: seeding time, database size, start-up
 * (spawn to first answer), feed page 0 and the hot thread (wrk), creates (autocannon), and the
 * server's memory after the run. BENCH_10M_SIZES changes the sizes (e.g. 1000000,5000000 when
 * the disk or the time is short); BENCH_10M_REUSE=1 measures the boards an earlier run seeded
 * (bench/data/<size>) again without seeding them (10M takes about 9 minutes). Writes bench/results-10m.md.
 */
const sizes = (process.env.BENCH_10M_SIZES ?? '1000000,10000000').split(',').map(Number);
const port = 18_090;
const readLoad = { threads: 2, connections: 64 };

interface SizeRun {
  size: number;
  seedSeconds: number;
  dbMiB: number;
  startupMs: number;
  feed: number;
  thread: number;
  create: number;
  rssMb: number;
}

const reuse = process.env.BENCH_10M_REUSE === '1';

async function measure(size: number): Promise<SizeRun> {
  const started = performance.now();
  const reused = reuse && existsSync(join(dataRoot, String(size), 'board.db'));
  const dir = reused ? join(dataRoot, String(size)) : await seed(size);
  const seedSeconds = reused ? NaN : (performance.now() - started) / 1000;
  const board = await startBoard(dir, port, { BOARD_LIMITS: '0' });
  const result = { size, seedSeconds, dbMiB: statSync(join(dir, 'board.db')).size / 2 ** 20, startupMs: board.startupMs } as SizeRun;
  for (const path of ['/api/entry/feed/0', `/api/entry/${hotThreadPid}/thread`]) await wrk(board.url, path, { ...readLoad, duration: 2 });
  result.feed = (await wrk(board.url, '/api/entry/feed/0', readLoad)).rps;
  result.thread = (await wrk(board.url, `/api/entry/${hotThreadPid}/thread`, readLoad)).rps;
  result.create = (await cannon(board.url, {
    path: '/api/entry/create', method: 'POST',
    setup: (c, i) => c.setHeadersAndBody({ 'content-type': 'application/x-www-form-urlencoded', cookie: `session=${benchSessionToken(i % 1000 + 1)}` }, new URLSearchParams({ content: `Zehn Millionen ${i} ${Math.random()}`, reply_to: String(1000 + i) }).toString()),
  })).rps;
  result.rssMb = rssMb(board.proc.pid!);
  await stop(board.proc);
  console.error(JSON.stringify(result));
  return result;
}

ensureWrk();
const started = machine();
const runs: SizeRun[] = [];
for (const size of sizes) runs.push(await measure(size));
const first = runs[0]!;
const lines = [
  '# Benchmark results: 1M to 10M entries',
  '',
  `${new Date().toISOString().slice(0, 10)} on ${started}; reads with wrk (${readLoad.threads} threads, ${readLoad.connections} connections), creates with autocannon (50 connections), 10 s each; one worker, BOARD_LIMITS=0. Search: not measured here (the FTS5 search of issue 15 is not on this branch).`,
  '',
  '| entries | seed s | board.db MiB | start-up ms | feed page 0 req/s | thread req/s | creates/s | RSS MB |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...runs.map((r) => `| ${r.size.toLocaleString('en')} | ${Number.isNaN(r.seedSeconds) ? 'earlier run' : r.seedSeconds.toFixed(0)} | ${r.dbMiB.toFixed(0)} | ${r.startupMs.toFixed(0)} | ${Math.round(r.feed).toLocaleString('en')} | ${Math.round(r.thread).toLocaleString('en')} | ${Math.round(r.create).toLocaleString('en')} | ${r.rssMb.toFixed(0)} |`),
  '',
  ...runs.slice(1).map((r) => `- ${r.size.toLocaleString('en')} vs ${first.size.toLocaleString('en')}: feed ${(r.feed / first.feed).toFixed(2)} ×, thread ${(r.thread / first.thread).toFixed(2)} ×, creates ${(r.create / first.create).toFixed(2)} ×, start-up ${(r.startupMs / first.startupMs).toFixed(2)} ×, RSS ${(r.rssMb / first.rssMb).toFixed(2)} ×, database ${(r.dbMiB / first.dbMiB).toFixed(1)} ×`),
  '',
];
console.log(lines.join('\n'));
writeFileSync(join(root, 'bench', 'results-10m.md'), lines.join('\n'));
