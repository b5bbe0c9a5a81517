import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { basePort, dataRoot, rssEachMb, spawnBoard, stop } from './harness.ts';
import { benchPassword, benchUsername, seedBoard } from './seed.ts';

/**
 * `make bench-memory`: resident memory (RSS, MiB) of the server's processes, the figures
 * docs/SCALING.md "Memory" holds: a board of 3 users and 30 entries and one of 100,000 entries
 * (bench/seed.ts, 10,000 users), each with BOARD_WORKERS=1 and 2, read at three moments: at rest
 * once the ASN tables are loaded; after reads that fill the response caches (every feed page,
 * 2,000 threads, 500 user feeds, 200 entry pages); after 4 logins (scrypt's 128 MiB per hash).
 * Prints a Markdown table. `BENCH_MEMORY_SIZES=30,100000` chooses the boards (entries; the
 * smallest gets 3 users).
 */
const sizes = (process.env.BENCH_MEMORY_SIZES ?? '30,100000').split(',').map(Number);
const concurrency = 16;
/** Away from bench/run.ts's ports, so a benchmark running beside it does not collide. */
const port = basePort + 150;

interface Server {
  proc: ChildProcess;
  url: string;
  /** Lines the server wrote to stderr. */
  log: string[];
}

/** The real server as its own process, its log (stdout and stderr) kept so the ASN line can be waited for. */
async function startServer(dataDir: string, workers: number): Promise<Server> {
  const proc = spawnBoard(dataDir, port, { BOARD_LIMITS: '0', BOARD_WORKERS: String(workers) }, [
    'ignore',
    'pipe',
    'pipe',
  ]);
  const log: string[] = [];
  for (const stream of [proc.stdout!, proc.stderr!])
    stream.setEncoding('utf8').on('data', (chunk: string) => log.push(...chunk.split('\n').filter(Boolean)));
  const url = `http://127.0.0.1:${port}`;
  try {
    // Every serving process loads the ASN tables itself and says so once.
    await until(() => log.filter((l) => l.includes('ASN data set')).length >= workers, 60_000, log);
    await until(() => log.some((l) => /listening/.test(l)), 60_000, log);
  } catch (err) {
    await stop(proc);
    throw err;
  }
  return { proc, url, log };
}

async function until(done: () => boolean, timeoutMs: number, log: string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`server not ready in time; its log:\n${log.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GETs every path, `concurrency` at a time, each with its own X-Forwarded-For address. */
async function readAll(url: string, paths: string[]): Promise<void> {
  let next = 0;
  const client = async (n: number) => {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await fetch(url + path, { headers: { 'x-forwarded-for': `10.9.${n}.${next % 250}` } });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, n) => client(n)));
}

function readPaths(entries: number, users: number): string[] {
  const paths: string[] = [];
  for (let page = 0; page <= 100; page++) paths.push(`/api/entry/feed/${page}`);
  const threads = Math.min(entries, 2000);
  for (let i = 0; i < threads; i++) paths.push(`/api/entry/${1 + Math.floor((i * entries) / threads)}/thread`);
  for (let uid = 1; uid <= Math.min(users, 500); uid++) paths.push(`/api/u/${benchUsername(uid)}/feed/0`);
  for (let i = 0; i < Math.min(entries, 200); i++) paths.push(`/e/${1 + Math.floor((i * entries) / 200)}`);
  paths.push('/', '/api/stats', '/api/stats/detail');
  return paths;
}

async function logins(url: string, users: number): Promise<void> {
  await Promise.all(
    Array.from({ length: 4 }, async (_, i) => {
      const res = await fetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.8.0.${i + 1}` },
        body: new URLSearchParams({ user: benchUsername(1 + (i % users)), pass: benchPassword }).toString(),
      });
      if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
    }),
  );
}

const settle = () => new Promise((r) => setTimeout(r, 3000));
const mib = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');

async function main(): Promise<void> {
  const lines = [
    `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${cpus().length} cores (${cpus()[0]?.model.trim()}), ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. RSS in MiB: one process, or the primary then each worker.`,
    '',
    '| board | BOARD_WORKERS | at rest | after reads | after 4 logins | load average (1 min) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const entries of sizes) {
    const users = entries < 1000 ? 3 : 10_000;
    const dir = join(dataRoot, `memory-${entries}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await seedBoard(join(dir, 'board.db'), { entries, users, sessions: Math.min(users, 100) });
    for (const workers of [1, 2]) {
      const server = await startServer(dir, workers);
      try {
        await settle();
        const rest = rssEachMb(server.proc.pid!);
        await readAll(server.url, readPaths(entries, users));
        await settle();
        const read = rssEachMb(server.proc.pid!);
        await logins(server.url, users);
        await settle();
        const login = rssEachMb(server.proc.pid!);
        const board = `${entries.toLocaleString('en')} entries, ${users.toLocaleString('en')} users`;
        lines.push(
          `| ${board} | ${workers} | ${mib(rest)} | ${mib(read)} | ${mib(login)} | ${loadavg()[0]!.toFixed(1)} |`,
        );
        console.error(lines.at(-1));
      } finally {
        await stop(server.proc);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(lines.join('\n'));
}

await main();
