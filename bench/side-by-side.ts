import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { basePort, rssEachMb, startBoard, stop } from './harness.ts';
import { median, startCeiling, wrk } from './load.ts';

/**
 * Two versions of the board on one read path at the same moment: another checkout's code
 * (BENCH_BEFORE) against this checkout, both up at once, each on its own copy of the board and
 * with its own wrk of half the read load (1 thread, 32 connections, unpinned), in BENCH_ROUNDS
 * rounds (default 12) of fresh processes: one start differs from the next by up to a fifth.
 * Each round warms both for 3 s, then measures 5 s: answers a second and CPU per answer (the
 * server's utime + stime from /proc, all its threads and its workers'). The report is the
 * median of after / before with every round. A slow second of this shared machine hits both alike, so a difference of a
 * few per cent shows (the access log of cached answers: 12 rounds, bench/results.md); measured in
 * turn, 5-s windows swing by ±25 % here. Two copies of one version give the noise (about ±2 %).
 * `BENCH_BEFORE=/path/to/checkout node --import tsx bench/side-by-side.ts <board copy> <board copy> [path]`
 * (copies of a seeded board, e.g. bench/data/1000000; path default /api/entry/feed/50).
 * BENCH_BEFORE=same-bytes puts the same-bytes ceiling (bench/same-bytes.ts, fed by this checkout's
 * board on the second copy) in the place of the other checkout: the side-by-side rounds of
 * bench/run.ts alone, with CPU per answer; the first copy is then not used.
 * BENCH_BEFORE_NODE and BENCH_AFTER_NODE run either side on another Node binary (default: the one
 * running this script; the other checkout needs a node_modules installed by that Node): a move
 * of the runtime, measured like a change of the code. Each round also gives each server's start-up
 * (spawn to first answer) and, after the load, its memory (RSS, its workers' included).
 */
const [dirBefore, dirAfter, path = '/api/entry/feed/50'] = process.argv.slice(2);
const before = process.env.BENCH_BEFORE;
if (!before || !dirBefore || !dirAfter)
  throw new Error('usage: BENCH_BEFORE=<checkout> bench/side-by-side.ts <board copy> <board copy> [path]');
const after = join(import.meta.dirname, '..');
const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
const seconds = 5;
/** BENCH_NEW_CONNECTIONS=1: every request on a new connection (Connection: close), as nginx sends them without upstream keep-alive. */
const halfLoad = { threads: 1, connections: 32, newConnections: process.env.BENCH_NEW_CONNECTIONS === '1' };

/**
 * CPU microseconds the process has used so far, all threads (fields 14 and 15 of /proc/<pid>/stat,
 * in clock ticks of 10 ms), with its living children's (a cluster's workers; BOARD_WORKERS > 1).
 */
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return (
    (Number(fields[11]) + Number(fields[12])) * 10_000 + children.reduce((sum, child) => sum + cpuMicros(child), 0)
  );
}

/** The same-bytes ceiling of the board's answer at `pageUrl`, shaped like a started board. */
async function ceilingOf(pageUrl: string, port: number): Promise<{ proc: ChildProcess; url: string }> {
  return { proc: await startCeiling('same-bytes.ts', pageUrl, port), url: `http://127.0.0.1:${port}` };
}

const beforeNode = process.env.BENCH_BEFORE_NODE ?? process.execPath;
const afterNode = process.env.BENCH_AFTER_NODE ?? process.execPath;
const rates: number[] = [];
const costs: number[] = [];
for (let i = 0; i < rounds; i++) {
  const now = await startBoard(dirAfter, basePort + 12, {}, after, afterNode);
  const old =
    before === 'same-bytes'
      ? await ceilingOf(now.url + path, basePort + 10)
      : await startBoard(dirBefore, basePort + 10, {}, before, beforeNode);
  await Promise.all([old, now].map((board) => wrk(board.url, path, { ...halfLoad, duration: 3 })));
  const cpuBefore = [old, now].map((board) => cpuMicros(board.proc.pid!));
  const [oldRun, nowRun] = await Promise.all(
    [old, now].map((board) => wrk(board.url, path, { ...halfLoad, duration: seconds })),
  );
  const [oldCost, nowCost] = [old, now].map(
    (board, k) => (cpuMicros(board.proc.pid!) - cpuBefore[k]!) / ([oldRun, nowRun][k]!.rps * seconds),
  );
  rates.push(nowRun!.rps / oldRun!.rps);
  costs.push(nowCost! / oldCost!);
  const memory = (pid: number) =>
    rssEachMb(pid)
      .reduce((sum, mb) => sum + mb, 0)
      .toFixed(0);
  const startup = (board: { proc: ChildProcess; startupMs?: number }) =>
    board.startupMs === undefined ? '' : `, started in ${board.startupMs.toFixed(0)} ms`;
  console.log(
    `round ${i + 1}: before ${oldRun!.rps.toFixed(0)}/s ${oldCost!.toFixed(1)} µs/answer, ${memory(old.proc.pid!)} MB${startup(old)}; ` +
      `after ${nowRun!.rps.toFixed(0)}/s ${nowCost!.toFixed(1)} µs/answer, ${memory(now.proc.pid!)} MB${startup(now)}`,
  );
  await Promise.all([stop(old.proc), stop(now.proc)]);
}
const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');
console.log(
  `${path}, after / before: answers a second ${median(rates).toFixed(3)} [${list(rates)}]; CPU per answer ${median(costs).toFixed(3)} [${list(costs)}]`,
);
