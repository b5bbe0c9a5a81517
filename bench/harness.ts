import autocannon from 'autocannon';
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { benchSessionToken } from './seed.ts';

/**
 * What the benchmarks share (bench/run.ts, bench/search.ts, bench/ten-million.ts): autocannon with
 * 50 connections, each its own X-Forwarded-For address, and the real server in its own process
 * (BOARD_TRUST_PROXY=1, BOARD_LIMITS=0 unless BENCH_LIMITS says otherwise, BOARD_WORKERS as the
 * caller asks). wrk and the ceilings (bench/load.ts) build on it.
 */
export const boardLimits = process.env.BENCH_LIMITS ?? '0';
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const connections = 50;
export const root = new URL('..', import.meta.url).pathname;
export const dataRoot = join(root, 'bench', 'data');
export const basePort = 18_080;

export interface Row {
  name: string;
  size: number;
  rps: number;
  p50: number;
  p99: number;
  ratio?: number;
  rssMb?: number;
  errors: number;
  note?: string;
}

let ipCounter = 0;
/** A fresh address from 10.x per connection: only ever sent as a header, never connected to. */
function nextIp(): string {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
}

export type Setup = (
  client: {
    setHeaders(h: Record<string, string>): void;
    setHeadersAndBody(h: Record<string, string>, b: string | Buffer): void;
  },
  index: number,
) => void;

export interface LoadOptions {
  path: string;
  method?: 'GET' | 'POST';
  setup?: Setup;
  connections?: number;
  overallRate?: number;
  duration?: number;
}

export async function load(url: string, options: LoadOptions): Promise<autocannon.Result> {
  let index = 0;
  return autocannon({
    url: url + options.path,
    method: options.method ?? 'GET',
    connections: options.connections ?? connections,
    duration: options.duration ?? seconds,
    overallRate: options.overallRate,
    setupClient: (client: any) => {
      const i = ++index;
      if (options.setup) options.setup(wrapClient(client), i);
      else client.setHeaders({ 'x-forwarded-for': nextIp() });
    },
  } as autocannon.Options);
}

function wrapClient(client: any) {
  const ip = nextIp();
  return {
    setHeaders: (h: Record<string, string>) => client.setHeaders({ ...h, 'x-forwarded-for': ip }),
    setHeadersAndBody: (h: Record<string, string>, b: string | Buffer) =>
      client.setHeadersAndBody({ ...h, 'x-forwarded-for': ip }, b),
  };
}

/** A fresh process is measured warm, like a server that has been up a while: JIT and page cache. */
export async function warmUp(url: string, paths: string[]): Promise<void> {
  for (const path of paths) await load(url, { path, duration: 2 });
}

export function row(name: string, size: number, result: autocannon.Result, note?: string): Row {
  const errors = result.errors + result.timeouts + result.non2xx;
  return { name, size, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, note };
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

/**
 * The real server as its own process (previews off); `env` adds or overrides settings (BOARD_WORKERS,
 * BOARD_LIMITS); `codeRoot`: another checkout's code to run, `node` another Node binary to run it
 * on (a before/after comparison).
 */
export async function startBoard(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  codeRoot = root,
  node = process.execPath,
): Promise<Board> {
  await ensurePortFree(port);
  const started = performance.now();
  const proc = spawnBoard(dataDir, port, env, ['ignore', 'ignore', 'inherit'], codeRoot, node);
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, Date.now() + 120_000); // a 10M-entry database takes a while
  // With workers, the primary says "listening" once all of them are: the health check above may
  // have reached the first. Wait for the rest the cheap way: a few more answers.
  for (let i = 0; i < 20; i++) await fetch(`${url}/api/health`);
  return { proc, url, startupMs: performance.now() - started };
}

/**
 * Refuses a port another process holds: the health check would otherwise be answered by that
 * process (a board left over from an aborted run) while the new board failed to listen, and the
 * bench would measure a stranger.
 */
async function ensurePortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${port} is taken by another process (a board left from an earlier run?)`)
          : err,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** The server process alone, not waited for: startBoard's settings, with the output where `stdio` says. */
export function spawnBoard(
  dataDir: string,
  port: number,
  env: Record<string, string>,
  stdio: StdioOptions,
  codeRoot = root,
  node = process.execPath,
): ChildProcess {
  return spawn(node, ['--import', 'tsx', 'server.ts'], {
    cwd: codeRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOARD_DATA: dataDir,
      BOARD_TRUST_PROXY: '1',
      BOARD_PREVIEW: '0',
      BOARD_LIMITS: boardLimits,
      ...env,
    },
    stdio,
  });
}

export async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/** Resident memory of one process, in MB. */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** Resident memory of a process and its children (a cluster's primary and workers), in MB, each. */
export function rssEachMb(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no children file: a single process
  }
  return [rssMb(pid), ...children.flatMap((child) => rssEachMb(child))];
}

export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export const formHeaders = (uid: number) => ({
  'content-type': 'application/x-www-form-urlencoded',
  cookie: `session=${benchSessionToken(uid)}`,
});

/** GETs of `url` one after the other until `done` says stop (at least `atLeast`): their times in ms, sorted. */
export async function sequentialReads(url: string, done: () => boolean, atLeast: number): Promise<number[]> {
  const times: number[] = [];
  while (times.length < atLeast || !done()) {
    const started = performance.now();
    const answer = await fetch(url);
    await answer.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
