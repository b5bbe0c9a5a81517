import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { connections, load, root, seconds, type LoadOptions } from './harness.ts';

/**
 * The read side of `make bench` on top of the shared harness (bench/harness.ts): wrk (a C load
 * generator, lighter than autocannon on a 2-core machine, so the server gets more of the CPU;
 * used for reads), autocannon's result in the same shape, and the two ceilings: a bare node:http
 * server stringifying a feed-sized array (bench/baseline.ts) and one answering the same bytes as
 * the board from memory (bench/same-bytes.ts).
 */
export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** autocannon (bench/harness.ts load), as a Measured. */
export async function cannon(url: string, options: LoadOptions): Promise<Measured> {
  const result = await load(url, options);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** wrk must be there: the Debian package, installed with apt-get when missing. */
export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return; // wrk --version exits 1 but exists
    console.error('bench: installing wrk (apt-get install -y wrk)');
    execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  }
}

/** wrk on one GET path: `threads` generator threads, unpinned, like the board's workers. */
export function wrk(
  url: string,
  path: string,
  options: { threads?: number; connections?: number; duration?: number; newConnections?: boolean } = {},
): Promise<Measured> {
  const args = [
    '--latency',
    '-t',
    String(options.threads ?? 1),
    '-c',
    String(options.connections ?? connections),
    '-d',
    `${options.duration ?? seconds}s`,
    url + path,
  ];
  // Connection: close makes every request a new connection, as a proxy without upstream keep-alive sends them.
  if (options.newConnections) args.push('-H', 'Connection: close');
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => {
      const ms = (label: string) => {
        const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
        if (!m) return NaN;
        return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
      };
      const errors =
        Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) +
        Number(/Socket errors: .*?timeout (\d+)/.exec(out)?.[1] ?? 0);
      resolve({ rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN), p50: ms('50'), p99: ms('99'), errors });
    });
  });
}

/** Starts one of the ceilings (bench/baseline.ts or bench/same-bytes.ts; the latter in `processes` processes) on `port`; resolves once it is ready. */
export async function startCeiling(
  script: 'baseline.ts' | 'same-bytes.ts',
  argument: string,
  port: number,
  processes = 1,
): Promise<ChildProcess> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', join('bench', script), argument, String(port), String(processes)],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((r) => proc.stdout!.once('data', r));
  return proc;
}

/**
 * Interleaved rounds (docs/SCALING.md "How far one machine goes"): each side measured `rounds`
 * times, alternating, so drift on the machine hits both.
 */
export const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** Seconds per round and side. */
export const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 5);

/** A ratio over interleaved rounds: the median of the per-round ratios and their spread. */
export interface Ratio {
  median: number;
  min: number;
  max: number;
}

export interface Interleaved {
  /** The round with the median rate of each side (its latencies), errors summed over all rounds. */
  base: Measured;
  measured: Measured;
  ratio: Ratio;
}

/**
 * `base` and `measured`, `rounds` times, each round the same length and load; the ratio of each
 * round is measured/base of that round. Neither side is favoured: same duration, same
 * parameters, and the order turns every round (base first, then measured first, …), so a drift
 * of the machine during a pair costs each side in turn.
 */
export async function interleaved(
  base: () => Promise<Measured>,
  measured: () => Promise<Measured>,
  count = rounds,
): Promise<Interleaved> {
  const bases: Measured[] = [];
  const measureds: Measured[] = [];
  for (let i = 0; i < count; i++) {
    const [b, m] = await inTurn(base, measured, i);
    bases.push(b);
    measureds.push(m);
  }
  return compareRounds(bases, measureds);
}

/** Round `round` of interleaved rounds: base first in even rounds, measured first in odd ones. */
export async function inTurn<T>(base: () => Promise<T>, measured: () => Promise<T>, round: number): Promise<[T, T]> {
  if (round % 2 === 0) {
    const b = await base();
    return [b, await measured()];
  }
  const m = await measured();
  return [await base(), m];
}

/** Rounds measured in pairs (base i and measured i back to back): the median rounds and the ratio. */
export function compareRounds(bases: Measured[], measureds: Measured[]): Interleaved {
  const ratios = measureds.map((m, i) => m.rps / bases[i]!.rps);
  return {
    base: medianRound(bases),
    measured: medianRound(measureds),
    ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The round with the median rate (an odd count: one of them), with every round's errors. */
function medianRound(measured: Measured[]): Measured {
  const sorted = [...measured].sort((a, b) => a.rps - b.rps);
  const errors = measured.reduce((sum, m) => sum + m.errors, 0);
  return { ...sorted[Math.floor(sorted.length / 2)]!, rps: median(measured.map((m) => m.rps)), errors };
}

/** "0.91 (0.85–0.97)": the median ratio and its spread. */
export function formatRatio(ratio: Ratio | undefined): string {
  return ratio ? `${ratio.median.toFixed(2)} (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})` : '';
}
