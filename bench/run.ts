import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  basePort,
  boardLimits,
  connections,
  dataRoot,
  formBody,
  formHeaders,
  root,
  rssEachMb,
  rssMb,
  seconds,
  startBoard,
  stop,
  type Board,
  type LoadOptions,
} from './harness.ts';
import { limitCostLines, measureLimitCosts } from './limits.ts';
import {
  cannon,
  compareRounds,
  ensureWrk,
  formatRatio,
  inTurn,
  interleaved,
  roundSeconds,
  rounds,
  startCeiling,
  wrk,
  type Measured,
  type Ratio,
} from './load.ts';
import { settleMachine } from './settle.ts';
import { benchPassword, benchSessionToken, benchUsername, hotThreadPid, seedBoard } from './seed.ts';

/**
 * `make bench`: seeds boards of 10k, 100k and 1M entries and loads the real server (its own
 * process, BOARD_TRUST_PROXY=1, each autocannon connection its own X-Forwarded-For address so
 * per-IP limits stay on). Every read case is measured with wrk and reported as a ratio to two
 * ceilings: a bare node:http server stringifying a feed-sized array (bench/baseline.ts), and a
 * bare server answering THE SAME BYTES as the board for that case from memory
 * (bench/same-bytes.ts, this runtime's limit on this machine for that body). Board and same-bytes
 * ceiling run in rounds, each with a fresh board and ceiling (againstSameBytes): in turn (the order
 * turning every round, same length and load) and side by side; the report gives the median ratio
 * of each with its spread: one run of each back to back moved the ratio by ±10 % with the
 * machine's drift, and one board start by up to a fifth against the next. Writes and the mixed load use
 * autocannon. Feed and thread reads (wrk) with BOARD_WORKERS=2 against one worker in interleaved
 * rounds too (a one-worker and a two-worker server started in turn on the same database), creates
 * and votes with both servers up at once on two copies of the board, the load in 3-s windows to
 * one and then the other (writesByWorkers), then the mixed load the same way in 5-s windows
 * (mixedByWorkers). The server runs with
 * BOARD_LIMITS=0 (or BENCH_LIMITS); the report says which. bench/results.md gets the tables.
 * After each seed the run waits until the machine is quiet (bench/settle.ts: `sync`, nothing dirty,
 * the machine under 5 % of a core busy for 60 s): started during the write-back of the freshly
 * written database, the board spent about a third more CPU per cached answer for a minute.
 */
const sizes = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
/** wrk's settings for every read: two generator threads, 64 connections, unpinned. */
const readLoad = { threads: 2, connections: 64 };

interface Row extends Measured {
  name: string;
  size: number;
  stringify?: number;
  /** Median ratio to the same-bytes ceiling over interleaved rounds, with its spread. */
  sameBytes?: Ratio;
  /** The same, measured side by side (both servers under load at once, each with half of it). */
  sameBytesTogether?: Ratio;
  /** Median ratio of two workers to one over interleaved rounds, with its spread. */
  workers?: Ratio;
}

async function multipartImage(): Promise<{ body: Buffer; type: string }> {
  const jpeg = await sharp({
    create: { width: 1600, height: 1200, channels: 3, background: { r: 90, g: 140, b: 200 } },
  })
    .jpeg()
    .toBuffer();
  const boundary = 'benchboundary7d9f';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nEin Bild\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    jpeg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

export async function seed(size: number): Promise<string> {
  const dir = join(dataRoot, String(size));
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const stats = await seedBoard(join(dir, 'board.db'), { entries: size });
  console.error(
    `seeded ${size} entries in ${((performance.now() - started) / 1000).toFixed(1)} s (max depth ${stats.max_depth})`,
  );
  // Right after the seed the machine is still writing and reclaiming its pages, and the board's
  // CPU per answer was a third higher for about 90 s: wait for that before any measurement (bench/settle.ts).
  await settleMachine();
  return dir;
}

/** The read cases: name and path. */
const reads: [string, string][] = [
  ['feed page 0', '/api/entry/feed/0'],
  ['feed page 50', '/api/entry/feed/50'],
  [`thread (${hotThreadPid}, 100 replies)`, `/api/entry/${hotThreadPid}/thread`],
  // An entry every board size has (the smallest is 10,000): entry 12345 answered 404 at 10,000.
  ['vote tally', '/api/entry/1234/votes'],
  ['user feed', `/api/u/${benchUsername(7)}/feed/0`],
  ['page / (counts an impression)', '/'],
];

const users = 1000;
const writes = (): [string, LoadOptions][] => [
  [
    'create entry (text, logged in)',
    {
      path: '/api/entry/create',
      method: 'POST',
      setup: (c, i) =>
        c.setHeadersAndBody(
          formHeaders((i % users) + 1),
          formBody({ content: `Bench-Beitrag von Verbindung ${i} ${Math.random()}`, reply_to: String(1000 + i) }),
        ),
    },
  ],
  [
    'vote (logged in)',
    {
      path: '/api/entry/4242/vote',
      method: 'POST',
      setup: (c, i) => c.setHeadersAndBody(formHeaders((i % users) + 1), formBody({ mode: 'yes' })),
    },
  ],
];

/**
 * The board against the same bytes served from memory (that body's ceiling), in `rounds` rounds,
 * each with a fresh board and a fresh ceiling (a Node process's speed varies from one start to the
 * next by up to a fifth: one instance answered a case at 0.78 × its ceiling, the next at 0.92 ×;
 * a median over several instances is the typical board, not one lucky or unlucky start). Each
 * round warms both on the path, measures them in turn with the whole load (the order turning
 * every round, as in interleaved), then side by side with half of it each.
 */
async function againstSameBytes(
  dir: string,
  env: Record<string, string>,
  path: string,
  port: number,
): Promise<{ ceiling: Measured; measured: Measured; ratio: Ratio; together: Ratio }> {
  const ceilings: Measured[] = [];
  const boards: Measured[] = [];
  const half = { threads: readLoad.threads / 2, connections: readLoad.connections / 2, duration: roundSeconds };
  const halves: [Measured[], Measured[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    const board = await startBoard(dir, basePort, env);
    await wrk(board.url, path, { ...readLoad, duration: 2 }); // warm: JIT, page cache, response cache
    const ceiling = await startCeiling('same-bytes.ts', board.url + path, port);
    const ceilingUrl = `http://127.0.0.1:${port}`;
    await wrk(ceilingUrl, path, { ...readLoad, duration: 2 });
    const whole = (url: string) => wrk(url, path, { ...readLoad, duration: roundSeconds });
    const [ceilingWhole, boardWhole] = await inTurn(
      () => whole(ceilingUrl),
      () => whole(board.url),
      i,
    );
    ceilings.push(ceilingWhole);
    boards.push(boardWhole);
    // Side by side: both at once, each with its own wrk of half the load, so the two servers share
    // the cores and a slow second of this shared VM hits both alike (in turn, 5-s windows swing by
    // ±25 % here); the ratio is what an answer costs the one against the other.
    const [ceilingHalf, boardHalf] = await Promise.all([wrk(ceilingUrl, path, half), wrk(board.url, path, half)]);
    halves[0].push(ceilingHalf);
    halves[1].push(boardHalf);
    await stop(ceiling);
    await stop(board.proc);
  }
  const turns = compareRounds(ceilings, boards);
  return {
    ceiling: turns.base,
    measured: turns.measured,
    ratio: turns.ratio,
    together: compareRounds(...halves).ratio,
  };
}

type WorkerCase = [string, (url: string, workers: number) => Promise<Measured>];

/**
 * The cases of a worker round: feed and thread reads with wrk, then the same-bytes ceiling of feed
 * page 0 in as many processes as the board has workers (what two processes can do on this machine
 * at all, with wrk on the same cores). The writes: writesByWorkers.
 */
const workerCases = (): WorkerCase[] => [
  ...[reads[0]!, reads[2]!].map(
    ([name, path]): WorkerCase => [
      name,
      async (url) => {
        await wrk(url, path, { ...readLoad, duration: 2 });
        return wrk(url, path, { ...readLoad, duration: roundSeconds });
      },
    ],
  ),
  [
    'the same-bytes ceiling of feed page 0, one process per worker',
    async (url, workers) => {
      const ceiling = await startCeiling('same-bytes.ts', `${url}${reads[0]![1]}`, basePort + 1, workers);
      const ceilingUrl = `http://127.0.0.1:${basePort + 1}`;
      await wrk(ceilingUrl, '/', { ...readLoad, duration: 2 });
      const measured = await wrk(ceilingUrl, '/', { ...readLoad, duration: roundSeconds });
      await stop(ceiling);
      return measured;
    },
  ],
];

/** One round: a fresh server with `workers` on `dir`, then each case of workerCases after its warm-up. */
async function workerRound(dir: string, workers: string, env: Record<string, string>): Promise<Measured[]> {
  const board = await startBoard(dir, basePort, { ...env, BOARD_WORKERS: workers });
  const measured: Measured[] = [];
  for (const [, measure] of workerCases()) measured.push(await measure(board.url, Number(workers)));
  await stop(board.proc);
  return measured;
}

/**
 * Reads with two workers against one in interleaved rounds (the order turning every round): a
 * one-worker and a two-worker server started in turn on the same database, fresh each round (a
 * Node process's speed varies from one start to the next). Why rounds: one run each, minutes
 * apart, gave 1.22, 1.40 and 1.58 x on the same code.
 */
async function byWorkers(dir: string, size: number, env: Record<string, string>, rows: Row[]): Promise<Ratio[]> {
  const one: Measured[][] = [];
  const two: Measured[][] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) one.push(await workerRound(dir, '1', env));
    two.push(await workerRound(dir, '2', env));
    if (i % 2 === 1) one.push(await workerRound(dir, '1', env));
  }
  const ratios = workerCases().map(([name], c) => {
    const compared = compareRounds(
      one.map((r) => r[c]!),
      two.map((r) => r[c]!),
    );
    rows.push({ name: `BOARD_WORKERS=1: ${name}`, size, ...compared.base });
    rows.push({ name: `BOARD_WORKERS=2: ${name}`, size, ...compared.measured, workers: compared.ratio });
    return compared.ratio;
  });
  return ratios;
}

/** Seconds per window of writesByWorkers. */
const writeWindowSeconds = 3;

/**
 * A one-worker server on the board and a two-worker server on a copy of it (a server keeps its data
 * folder to itself), both up at once while `measure` runs; then both stop and the copy goes.
 * Returns the two-worker server's memory after the load: primary, then each worker (MB).
 */
async function bothWorkerCounts(
  dir: string,
  env: Record<string, string>,
  measure: (one: Board, two: Board) => Promise<void>,
): Promise<number[]> {
  const copy = `${dir}-two-workers`;
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy);
  for (const file of ['board.db', 'board.db-wal']) {
    if (existsSync(join(dir, file))) copyFileSync(join(dir, file), join(copy, file));
  }
  const one = await startBoard(dir, basePort, { ...env, BOARD_WORKERS: '1' });
  const two = await startBoard(copy, basePort + 1, { ...env, BOARD_WORKERS: '2' });
  await measure(one, two);
  await new Promise((r) => setTimeout(r, 2000)); // a login holds 128 MiB while it hashes: let it finish
  const rssTwo = rssEachMb(two.proc.pid!);
  await stop(one.proc);
  await stop(two.proc);
  rmSync(copy, { recursive: true, force: true });
  return rssTwo;
}

/**
 * Creates and votes with two workers against one, both servers up at once (bothWorkerCounts), the
 * load going to one and then the other in turn (the order turning every pair), in 2 × rounds
 * pairs of 3-s windows after a 5-s warm-up each. Why not fresh servers in turn, as for the reads:
 * this VM's CPU runs a create 1.3-2 x slower for minutes at a time (the same in both servers,
 * kernel, SQLite and JS alike: perf), and 5-s windows a minute apart put those minutes in one
 * side's window and not the other's: pairs gave 0.76-2.79 x. Windows 3 s apart gave 0.95-1.12.
 */
async function writesByWorkers(one: Board, two: Board, size: number, rows: Row[]): Promise<void> {
  for (const [name, options] of writes()) {
    const run = (url: string, duration: number) => () => cannon(url, { ...options, duration });
    await run(one.url, 5)();
    await run(two.url, 5)();
    const compared = await interleaved(run(one.url, writeWindowSeconds), run(two.url, writeWindowSeconds), 2 * rounds);
    rows.push({ name: `BOARD_WORKERS=1: ${name}`, size, ...compared.base });
    rows.push({ name: `BOARD_WORKERS=2: ${name}`, size, ...compared.measured, workers: compared.ratio });
  }
}

/**
 * The mixed load with two workers against one, the same way as writesByWorkers: in `rounds` pairs
 * of 5-s windows after a 5-s warm-up each, every load of the mix compared on its own. Why: measured
 * once each for 10 s, minutes apart, two workers read 0.51 x one worker's feed pages in one run;
 * in alternating windows the same code gave 0.93 x (0.87-0.94).
 */
async function mixedByWorkers(
  one: Board,
  two: Board,
  size: number,
  image: { body: Buffer; type: string },
  rows: Row[],
): Promise<void> {
  await mixedLoads(one.url, 'warm-up', image, 5);
  await mixedLoads(two.url, 'warm-up', image, 5);
  const ones: Measured[][] = [];
  const twos: Measured[][] = [];
  for (let i = 0; i < rounds; i++) {
    const [a, b] = await inTurn(
      () => mixedLoads(one.url, `eins ${i}`, image, roundSeconds),
      () => mixedLoads(two.url, `zwei ${i}`, image, roundSeconds),
      i,
    );
    ones.push(a);
    twos.push(b);
  }
  mixedLoadNames.forEach((name, load) => {
    const compared = compareRounds(
      ones.map((r) => r[load]!),
      twos.map((r) => r[load]!),
    );
    rows.push({ name: `BOARD_WORKERS=1: ${name}`, size, ...compared.base });
    rows.push({ name: `BOARD_WORKERS=2: ${name}`, size, ...compared.measured, workers: compared.ratio });
  });
}

/** Feed reads at full speed while creates run at 500/s, image posts at 5/s and logins at 2/s, for `duration` s. */
function mixedLoads(
  url: string,
  label: string,
  image: { body: Buffer; type: string },
  duration = seconds,
): Promise<Measured[]> {
  return Promise.all([
    cannon(url, { path: '/api/entry/feed/0', duration }),
    cannon(url, {
      path: '/api/entry/create',
      method: 'POST',
      connections: 10,
      overallRate: 500,
      duration,
      setup: (c, i) =>
        c.setHeadersAndBody(
          formHeaders(i + 100),
          formBody({ content: `Gemischte Last ${label} ${i} ${Math.random()}`, reply_to: String(500 + i) }),
        ),
    }),
    cannon(url, {
      path: '/api/entry/create',
      method: 'POST',
      connections: 2,
      overallRate: 5,
      duration,
      setup: (c, i) =>
        c.setHeadersAndBody(
          { 'content-type': image.type, cookie: `session=${benchSessionToken(i + 300)}` },
          image.body,
        ),
    }),
    cannon(url, {
      path: '/api/auth/login',
      method: 'POST',
      connections: 2,
      overallRate: 2,
      duration,
      setup: (c, i) =>
        c.setHeadersAndBody(
          { 'content-type': 'application/x-www-form-urlencoded' },
          formBody({ user: benchUsername(5000 + i), pass: benchPassword }),
        ),
    }),
  ]);
}

/** The row names of mixedLoads' measurements, in its order. */
const mixedLoadNames = [
  'mixed: feed page 0 reads (autocannon)',
  'mixed: creates at 500/s',
  'mixed: image posts at 5/s',
  'mixed: logins at 2/s',
];

/** The mixed load once, for `seconds` s: a row per load. */
async function mixed(url: string, size: number, image: { body: Buffer; type: string }): Promise<Row[]> {
  const measured = await mixedLoads(url, '', image);
  return mixedLoadNames.map((name, i) => ({ name, size, ...measured[i]! }));
}

interface FullRun {
  startupMs: number;
  rssOne: number;
  rssPrimary: number;
  rssWorkers: number;
  workersRatio: Ratio;
  /** The same-bytes ceiling of feed page 0 in two processes against one: what two workers can gain here at all. */
  ceilingWorkersRatio: Ratio;
  stringifyRps: number;
  dbBytes: number;
}

async function measureFullBoard(size: number, rows: Row[]): Promise<FullRun> {
  const dir = await seed(size);
  const env = { BOARD_LIMITS: boardLimits };
  let board = await startBoard(dir, basePort, env);
  for (const [, path] of reads) await wrk(board.url, path, { ...readLoad, duration: 2 }); // warm: JIT, page cache, response cache
  const sample = await (await fetch(`${board.url}/api/entry/feed/0`)).text();
  writeFileSync(join(dir, 'feed-sample.json'), sample);
  const baseline = await startCeiling('baseline.ts', join(dir, 'feed-sample.json'), basePort + 1);
  await wrk(`http://127.0.0.1:${basePort + 1}`, '/', { ...readLoad, duration: 2 });
  const stringify = await wrk(`http://127.0.0.1:${basePort + 1}`, '/', readLoad);
  await stop(baseline);
  rows.push({ name: 'ceiling: bare node:http stringifying a feed-sized array', size, ...stringify });

  await stop(board.proc);
  for (const [name, path] of reads) {
    const { ceiling, measured, ratio, together } = await againstSameBytes(dir, env, path, basePort + 1);
    rows.push({ name: `ceiling: the same bytes as ${name}`, size, ...ceiling });
    rows.push({
      name,
      size,
      ...measured,
      stringify: measured.rps / stringify.rps,
      sameBytes: ratio,
      sameBytesTogether: together,
    });
  }
  board = await startBoard(dir, basePort, env);
  rows.push({
    name: 'login (scrypt N=2^17)',
    size,
    ...(await cannon(board.url, {
      path: '/api/auth/login',
      method: 'POST',
      setup: (c, i) =>
        c.setHeadersAndBody(
          { 'content-type': 'application/x-www-form-urlencoded' },
          formBody({ user: benchUsername(2000 + i), pass: benchPassword }),
        ),
    })),
  });
  const image = await multipartImage();
  rows.push(...(await mixed(board.url, size, image)));
  await new Promise((r) => setTimeout(r, 2000)); // a login holds 128 MiB while it hashes: let it finish
  const rssOne = rssMb(board.proc.pid!);
  await stop(board.proc);
  const again = await startBoard(dir, basePort, env); // start-up: a second, cold start of the same database
  await stop(again.proc);
  const [workersRatio, , ceilingWorkersRatio] = await byWorkers(dir, size, env, rows);
  const rssTwo = await bothWorkerCounts(dir, env, async (one, two) => {
    await writesByWorkers(one, two, size, rows);
    await mixedByWorkers(one, two, size, image, rows);
  });
  return {
    startupMs: again.startupMs,
    rssOne,
    rssPrimary: rssTwo[0]!,
    rssWorkers: rssTwo.slice(1).reduce((a, b) => a + b, 0) / Math.max(1, rssTwo.length - 1),
    workersRatio: workersRatio!,
    ceilingWorkersRatio: ceilingWorkersRatio!,
    stringifyRps: stringify.rps,
    dbBytes: statSync(join(dir, 'board.db')).size,
  };
}

async function measureGrowth(size: number, rows: Row[], stringifyRps: number): Promise<void> {
  const dir = await seed(size);
  const board = await startBoard(dir, basePort + 2, { BOARD_LIMITS: boardLimits });
  for (const [name, path] of [reads[0]!, reads[2]!]) {
    await wrk(board.url, path, { ...readLoad, duration: 2 });
    const measured = await wrk(board.url, path, readLoad);
    rows.push({ name, size, ...measured, stringify: measured.rps / stringifyRps });
  }
  await stop(board.proc);
}

export function table(rows: Row[]): string {
  const ratio = (r?: number) => (r === undefined ? '' : r.toFixed(2));
  const lines = [
    '| case | entries | req/s | p50 ms | p99 ms | × stringify | × same bytes, in turn | × same bytes, side by side | × one worker | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.size.toLocaleString('en')} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${ratio(r.stringify)} | ${formatRatio(r.sameBytes)} | ${formatRatio(r.sameBytesTogether)} | ${formatRatio(r.workers)} | ${r.errors} |`,
    );
  }
  return lines.join('\n');
}

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the start`;
}

async function main(): Promise<void> {
  ensureWrk();
  const started = machine();
  const rows: Row[] = [];
  const largest = Math.max(...sizes);
  const full = await measureFullBoard(largest, rows);
  for (const size of sizes.filter((s) => s !== largest)) await measureGrowth(size, rows, full.stringifyRps);
  const feedAt = (size: number) => rows.find((r) => r.size === size && r.name === 'feed page 0')?.rps;
  const smallest = Math.min(...sizes);
  const growth = feedAt(smallest) && feedAt(largest) ? feedAt(largest)! / feedAt(smallest)! : NaN;
  const report = [
    '# Benchmark results',
    '',
    `${new Date().toISOString().slice(0, 10)} on ${started}; reads with wrk (${readLoad.threads} threads, ${readLoad.connections} connections, unpinned), ` +
      `writes and the mixed load with autocannon (${connections} connections), ${seconds} s per case after a 2 s warm-up; the server with BOARD_LIMITS=${boardLimits}.`,
    '',
    `Interleaved rounds: each read case against its same-bytes ceiling in ${rounds} rounds of ${roundSeconds} s each, each round with a fresh board and ceiling (ceiling then board, board then ceiling, …, ` +
      `same wrk settings), and feed and thread reads (wrk) and the same-bytes ceiling of feed page 0 (in as many processes) with two workers against one in ${rounds} rounds (a one-worker and a two-worker server started in turn on the same database, the order turning every round, ` +
      `2 s of warm-up and ${roundSeconds} s per case each). Creates and votes with two workers against one: both servers up at once on two copies of the board, the load to one and then the other in ${2 * rounds} pairs of ${writeWindowSeconds}-s windows (the order turning every pair) after 5 s of warm-up each; then the mixed load on the same two servers the same way in ${rounds} pairs of ${roundSeconds}-s windows (the "mixed:" rows without a worker count are one 10-s window of a one-worker server). ` +
      'Those rows show the median round; "× same bytes, in turn" and "× one worker" are the median of the per-round ratios with their spread (min–max).',
    '',
    `Side by side: in each of the same rounds, after the pair in turn, the read case and its ceiling are measured at the same moment for ${roundSeconds} s, each with its own wrk of half the load ` +
      `(${readLoad.threads / 2} thread, ${readLoad.connections / 2} connections), so the two servers share the cores and a slow second of the machine hits both; "× same bytes, side by side" is the median of those per-round ratios (min–max). ` +
      'It is the measure of the 0.9 × target (docs/SCALING.md "Reads and writes per core"): on this shared VM, rounds in turn swing by ±25 % from one 5-s window to the next.',
    '',
    table(rows),
    '',
    `- two workers vs one, feed page 0 (wrk): ${formatRatio(full.workersRatio)} ×; the same-bytes ceiling in two processes vs one, in the same rounds: ${formatRatio(full.ceilingWorkersRatio)} ×`,
    `- RSS after the run at ${largest.toLocaleString('en')} entries: one process ${full.rssOne.toFixed(0)} MB; BOARD_WORKERS=2: primary ${full.rssPrimary.toFixed(0)} MB, each worker ${full.rssWorkers.toFixed(0)} MB`,
    `- start-up with a ${largest.toLocaleString('en')}-entry database (${(full.dbBytes / 2 ** 20).toFixed(0)} MiB), spawn to first answered request: ${full.startupMs.toFixed(0)} ms`,
    `- feed page 0 at ${largest.toLocaleString('en')} vs ${smallest.toLocaleString('en')} entries: ${growth.toFixed(2)} ×`,
    '',
    "The abuse limits' own cost (bench/limits.ts: counters in SQLite, file database in WAL mode, 20,000 requests over 5,000 accounts and addresses):",
    '',
    ...limitCostLines(await measureLimitCosts()),
    '',
    '## Search, Atom feeds and share pages',
    '',
    'See [search-results.md](search-results.md) (`make bench-search`, 1,000,000 entries).',
    '',
  ].join('\n');
  console.log(report);
  writeFileSync(join(root, 'bench', 'results.md'), report);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
