import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { freePort, nginxPath, startNginx } from '../test/helpers/nginx.ts';
import { dataRoot, startBoard, stop } from './harness.ts';
import { ensureWrk, inTurn, median, wrk, type Measured } from './load.ts';
import { benchUsername, seedBoard } from './seed.ts';

/**
 * Logged-out reads through deploy/nginx.conf's cache against the board alone (issue 33 part 2), in
 * the same run on the same machine: wrk (one thread, 50 connections, no cookie) on the same path,
 * straight to the board and through one nginx worker in front of it, in interleaved rounds (the
 * order turns every round). For each run, the board's CPU (its process's user + system time over
 * the run, from /proc) as a share of one core: what the board spends while the cache answers.
 * Usage: node --import tsx bench/nginx-cache.ts (BENCH_ROUNDS, BENCH_ROUND_SECONDS, BENCH_SIZE).
 * Prints a Markdown table for bench/results.md.
 */

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 8);
const size = Number(process.env.BENCH_SIZE ?? 10_000);
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

if (!nginxPath()) {
  console.error('bench: nginx is not installed (apt-get install -y nginx)');
  process.exit(1);
}
ensureWrk();

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond; // utime, stime (fields 14, 15)
}

interface Run extends Measured {
  /** The board's CPU during the run, as a share of one core. */
  boardCpu: number;
}

const dir = join(dataRoot, `nginx-cache-${size}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
await seedBoard(join(dir, 'board.db'), { entries: size });
const boardPort = await freePort();
const board = await startBoard(dir, boardPort);
const nginx = await startNginx(boardPort);
const pid = board.proc.pid!;

async function measure(url: string, path: string): Promise<Run> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const result = await wrk(url, path, { duration: roundSeconds });
  const elapsed = (performance.now() - started) / 1000;
  return { ...result, boardCpu: (cpuSeconds(pid) - cpuBefore) / elapsed };
}

const paths = [
  ['/api/entry/feed/0', "feed page 0 (the board's fast path)"],
  [`/api/u/${benchUsername(1)}/feed/0`, "a user's feed page (the board's pipeline)"],
  ['/', 'the feed page (page shell)'],
] as const;

const lines = [
  `Board of ${size.toLocaleString('en')} entries, BOARD_WORKERS=1, one nginx worker (deploy/nginx.conf), wrk -t1 -c50, ${rounds} rounds of ${roundSeconds} s per side, load average at start ${loadavg()[0]!.toFixed(1)}.`,
  '',
  '| path | board alone (req/s) | through nginx (req/s) | ratio (median, spread) | board CPU alone | board CPU behind nginx | errors |',
  '|---|---:|---:|---:|---:|---:|---:|',
];
try {
  for (const [path, what] of paths) {
    // Warm both: the board's caches and JIT, nginx's copy.
    await wrk(board.url, path, { duration: 2 });
    await wrk(nginx.url, path, { duration: 2 });
    const alone: Run[] = [];
    const cached: Run[] = [];
    for (let round = 0; round < rounds; round++) {
      const [a, c] = await inTurn(
        () => measure(board.url, path),
        () => measure(nginx.url, path),
        round,
      );
      alone.push(a);
      cached.push(c);
    }
    const ratios = cached.map((c, i) => c.rps / alone[i]!.rps);
    const rps = (runs: Run[]) => Math.round(median(runs.map((r) => r.rps))).toLocaleString('en');
    const cpu = (runs: Run[]) => `${Math.round(median(runs.map((r) => r.boardCpu)) * 100)} %`;
    const errors = [...alone, ...cached].reduce((sum, r) => sum + r.errors, 0);
    lines.push(
      `| ${what} | ${rps(alone)} | ${rps(cached)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${cpu(alone)} | ${cpu(cached)} | ${errors} |`,
    );
    console.error(lines.at(-1));
  }
} finally {
  await nginx.stop();
  await stop(board.proc);
  rmSync(dir, { recursive: true, force: true });
}
console.log(lines.join('\n'));
