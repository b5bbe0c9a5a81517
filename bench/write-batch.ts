import { join } from 'node:path';
import { basePort, dataRoot, formBody, formHeaders, startBoard, stop } from './harness.ts';
import { cannon, compareRounds, formatRatio, median, rounds, roundSeconds, wrk, type Measured } from './load.ts';

/**
 * Issue 18, creates written in groups (db.txBatched): creates/s with one and two workers, the code
 * before (BENCH_BEFORE: a checkout without it) against this checkout, in interleaved rounds: every round starts
 * each server in turn on the same database (the order turning every round), warms it 2 s and
 * measures the create case of bench/run.ts for roundSeconds; the one-worker servers also measure
 * votes (autocannon) and feed page 0 (wrk), which must not get slower. (The cluster window of
 * lib/db/write-batch.ts was chosen with a temporary switch that added "2w after 1 ms" and "… 2 ms".)
 * `BENCH_BEFORE=/path/to/main node --import tsx bench/write-batch.ts [data folder]`
 * (default bench/data/1000000; use a copy: the rounds write to it).
 */
const dir = process.argv[2] ?? join(dataRoot, '1000000');
const before = process.env.BENCH_BEFORE;
if (!before) throw new Error('BENCH_BEFORE: the folder of a checkout without batching');
const users = 1000;
const createCase = {
  path: '/api/entry/create',
  method: 'POST' as const,
  setup: (c: { setHeadersAndBody(h: Record<string, string>, b: string): void }, i: number) =>
    c.setHeadersAndBody(
      formHeaders((i % users) + 1),
      formBody({ content: `Bench-Beitrag von Verbindung ${i} ${Math.random()}`, reply_to: String(1000 + i) }),
    ),
};
const voteCase = {
  path: '/api/entry/4242/vote',
  method: 'POST' as const,
  setup: (c: { setHeadersAndBody(h: Record<string, string>, b: string): void }, i: number) =>
    c.setHeadersAndBody(formHeaders((i % users) + 1), formBody({ mode: 'yes' })),
};

interface Server {
  name: string;
  code: string;
  workers: string;
  all?: boolean;
}
const after = join(import.meta.dirname, '..');
const servers: Server[] = [
  { name: '1w before', code: before, workers: '1', all: true },
  { name: '1w after', code: after, workers: '1', all: true },
  { name: '2w before', code: before, workers: '2' },
  { name: '2w after', code: after, workers: '2' },
];
// BENCH_ONLY: a comma-separated subset of the names above (a second look at some of them).
const only = process.env.BENCH_ONLY?.split(',');
if (only) servers.splice(0, servers.length, ...servers.filter((s) => only.includes(s.name)));
const cases = ['creates', 'votes', 'feed page 0'] as const;
type Case = (typeof cases)[number];

async function warmAndMeasure(measure: (duration: number) => Promise<Measured>): Promise<Measured> {
  await measure(2);
  return measure(roundSeconds);
}

async function round(server: Server): Promise<Partial<Record<Case, Measured>>> {
  const board = await startBoard(dir, basePort, { BOARD_WORKERS: server.workers }, server.code);
  const out: Partial<Record<Case, Measured>> = {};
  out.creates = await warmAndMeasure((duration) => cannon(board.url, { ...createCase, duration }));
  if (server.all) {
    out.votes = await warmAndMeasure((duration) => cannon(board.url, { ...voteCase, duration }));
    out['feed page 0'] = await warmAndMeasure((duration) =>
      wrk(board.url, '/api/entry/feed/0', { threads: 2, connections: 64, duration }),
    );
  }
  await stop(board.proc);
  console.error(
    `${server.name}: ${cases
      .filter((c) => out[c])
      .map((c) => `${c} ${out[c]!.rps.toFixed(0)}/s p99 ${out[c]!.p99} errors ${out[c]!.errors}`)
      .join(', ')}`,
  );
  return out;
}

const results = new Map<string, Partial<Record<Case, Measured>>[]>(servers.map((s) => [s.name, []]));
for (let i = 0; i < rounds; i++) {
  const order = servers.map((_, k) => servers[(k + i) % servers.length]!);
  if (i % 2 === 1) order.reverse();
  for (const server of order) results.get(server.name)!.push(await round(server));
}

const list = (name: string, c: Case) =>
  results
    .get(name)!
    .map((r) => r[c])
    .filter((m): m is Measured => m !== undefined);
console.log(`\n${dir}, ${rounds} rounds of ${roundSeconds} s`);
console.log('| server | case | req/s median | min–max | p50 ms | p99 ms | errors |');
console.log('|---|---|---:|---|---:|---:|---:|');
for (const server of servers) {
  for (const c of cases) {
    const measured = list(server.name, c);
    if (measured.length === 0) continue;
    const rps = measured.map((m) => m.rps);
    const cmp = compareRounds(measured, measured);
    console.log(
      `| ${server.name} | ${c} | ${median(rps).toFixed(0)} | ${Math.min(...rps).toFixed(0)}–${Math.max(...rps).toFixed(0)} | ${cmp.base.p50} | ${cmp.base.p99} | ${cmp.base.errors} |`,
    );
  }
}
const ratio = (a: string, b: string, c: Case = 'creates') =>
  results.has(a) &&
  results.has(b) &&
  console.log(`${b} / ${a}, ${c}: ${formatRatio(compareRounds(list(a, c), list(b, c)).ratio)}`);
console.log('');
ratio('1w before', '1w after');
ratio('1w before', '1w after', 'votes');
ratio('1w before', '1w after', 'feed page 0');
ratio('2w before', '2w after');
ratio('1w after', '2w after');
ratio('1w before', '2w after');
