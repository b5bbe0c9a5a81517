import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The benchmark's load generators and processes: autocannon (per-connection bodies, addresses and
 * cookies for writes), wrk (a C load generator, lighter than autocannon on a 2-core machine, so
 * the server gets more of the CPU; used for reads), the board as a child process, and the two
 * ceilings: a bare node:http server stringifying a feed-sized array (bench/baseline.ts) and one
 * answering the same bytes as the board from memory (bench/same-bytes.ts).
 */
export const root = new URL('..', import.meta.url).pathname;
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const connections = 50;

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

let ipCounter = 0;
/** A fresh address from 10.x per connection: only ever sent as a header, never connected to. */
export function nextIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export type Setup = (client: { setHeaders(h: Record<string, string>): void; setHeadersAndBody(h: Record<string, string>, b: string | Buffer): void }, index: number) => void;

export interface LoadOptions { path: string; method?: 'GET' | 'POST'; setup?: Setup; connections?: number; overallRate?: number; duration?: number }

/** autocannon: every connection its own X-Forwarded-For address (and body, with `setup`). */
export async function cannon(url: string, options: LoadOptions): Promise<Measured> {
  let index = 0;
  const result = await autocannon({
    url: url + options.path,
    method: options.method ?? 'GET',
    connections: options.connections ?? connections,
    duration: options.duration ?? seconds,
    overallRate: options.overallRate,
    setupClient: (client: any) => {
      const i = ++index;
      const ip = nextIp();
      if (options.setup) {
        options.setup({
          setHeaders: (h) => client.setHeaders({ ...h, 'x-forwarded-for': ip }),
          setHeadersAndBody: (h, b) => client.setHeadersAndBody({ ...h, 'x-forwarded-for': ip }, b),
        }, i);
      } else client.setHeaders({ 'x-forwarded-for': ip });
    },
  } as autocannon.Options);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
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
export function wrk(url: string, path: string, options: { threads?: number; connections?: number; duration?: number } = {}): Promise<Measured> {
  const args = ['--latency', '-t', String(options.threads ?? 1), '-c', String(options.connections ?? connections), '-d', `${options.duration ?? seconds}s`, url + path];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('error', reject);
    child.on('exit', () => {
      const ms = (label: string) => {
        const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
        if (!m) return NaN;
        return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
      };
      const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors: .*?timeout (\d+)/.exec(out)?.[1] ?? 0);
      resolve({ rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN), p50: ms('50'), p99: ms('99'), errors });
    });
  });
}

async function waitForHealth(url: string, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no answer from ${url} in time`);
}

export interface Board {
  proc: ChildProcess;
  url: string;
  /** Spawn to the first answered request. */
  startupMs: number;
}

/** The real server as its own process (BOARD_TRUST_PROXY=1, previews off), with BOARD_WORKERS. */
export async function startBoard(dataDir: string, port: number, env: Record<string, string>): Promise<Board> {
  const started = performance.now();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', BOARD_DATA: dataDir, BOARD_TRUST_PROXY: '1', BOARD_PREVIEW: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, Date.now() + 120_000);
  // With workers, the primary says "listening" once all of them are: the health check above may
  // have reached the first. Wait for the rest the cheap way: a few more answers.
  for (let i = 0; i < 20; i++) await fetch(`${url}/api/health`);
  return { proc, url, startupMs: performance.now() - started };
}

export async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/** Resident memory of a process and its children (a cluster's primary and workers), in MB, each. */
export function rssMb(pid: number): number[] {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // no children file: a single process
  }
  return [own, ...children.flatMap((child) => rssMb(child))];
}

/** Starts one of the ceilings (bench/baseline.ts or bench/same-bytes.ts) on `port`; resolves once it is ready. */
export async function startCeiling(script: 'baseline.ts' | 'same-bytes.ts', argument: string, port: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('bench', script), argument, String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => proc.stdout!.once('data', r));
  return proc;
}
