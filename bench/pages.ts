import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { basePort, dataRoot, startBoard, stop } from './harness.ts';
import { formatRatio, interleaved, type Measured, roundSeconds, startCeiling, wrk } from './load.ts';
import { hotThreadPid, seedBoard } from './seed.ts';

/**
 * The server-drawn pages against their JSON (issue 32, docs/API.md "Pages without JavaScript"):
 * page / against GET /api/entry/feed/0 and /e/{pid} against GET /api/entry/{pid}/thread, measured
 * in the same run in interleaved rounds (ratios of requests per second), and each cached page
 * against the same bytes served from memory (bench/same-bytes.ts). Both pages count an impression
 * per GET, as a visitor's would. A board of BENCH_PAGES_ENTRIES (default 100,000) seeded entries;
 * wrk with 2 threads and 64 connections, BENCH_ROUNDS rounds of BENCH_ROUND_SECONDS each. A paged
 * page (/?seite=2) is measured against its same bytes too: it leaves by the fast path as / does.
 * BENCH_PAGES_CEILING_ONLY=/,/?seite=2 measures only those pages against their same bytes (the
 * short form, for a change to the fast path).
 * Run: `node --import tsx bench/pages.ts`; prints a Markdown table for bench/results.md.
 */

const entries = Number(process.env.BENCH_PAGES_ENTRIES ?? 100_000);
const load = { threads: 2, connections: 64 };
const ceilingOnly = process.env.BENCH_PAGES_CEILING_ONLY?.split(',');

async function againstCeiling(url: string, path: string, port: number) {
  const ceiling = await startCeiling('same-bytes.ts', url + path, port);
  const ceilingUrl = `http://127.0.0.1:${port}`;
  await wrk(ceilingUrl, path, { ...load, duration: 2 });
  try {
    return await interleaved(
      () => wrk(ceilingUrl, path, { ...load, duration: roundSeconds }),
      () => wrk(url, path, { ...load, duration: roundSeconds }),
    );
  } finally {
    await stop(ceiling);
  }
}

const dir = join(dataRoot, `pages-${entries}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
await seedBoard(join(dir, 'board.db'), { entries });
const board = await startBoard(dir, basePort);
const rps = (m: Measured) => Math.round(m.rps).toLocaleString('en');
const lines = [
  `| case | ${entries.toLocaleString('en')} entries | req/s | base req/s | × base (min–max) |`,
  '|---|---|---:|---:|---:|',
];
try {
  const pairs: [string, string, string][] = [
    ['page / (HTML)', '/api/entry/feed/0', '/'],
    [`page /e/${hotThreadPid} (HTML)`, `/api/entry/${hotThreadPid}/thread`, `/e/${hotThreadPid}`],
  ];
  const againstJson = ceilingOnly ? [] : pairs;
  for (const [, json, page] of againstJson) {
    await wrk(board.url, json, { ...load, duration: 2 }); // warm: JIT, the response cache
    await wrk(board.url, page, { ...load, duration: 2 });
  }
  for (const [name, json, page] of againstJson) {
    const { base, measured, ratio } = await interleaved(
      () => wrk(board.url, json, { ...load, duration: roundSeconds }),
      () => wrk(board.url, page, { ...load, duration: roundSeconds }),
    );
    lines.push(`| ${name} against its JSON | ${json} | ${rps(measured)} | ${rps(base)} | ${formatRatio(ratio)} |`);
  }
  const cached: [string, string][] = ceilingOnly
    ? ceilingOnly.map((page) => [`page ${page} (HTML)`, page])
    : [...pairs.map(([name, , page]): [string, string] => [name, page]), ['page /?seite=2 (HTML)', '/?seite=2']];
  for (const [name, page] of cached) {
    if (ceilingOnly) await wrk(board.url, page, { ...load, duration: 2 }); // warm: JIT, the response cache
    const { base, measured, ratio } = await againstCeiling(board.url, page, basePort + 1);
    lines.push(
      `| ${name} against the same bytes | ${page} | ${rps(measured)} | ${rps(base)} | ${formatRatio(ratio)} |`,
    );
  }
} finally {
  await stop(board.proc);
}
console.log(lines.join('\n'));
