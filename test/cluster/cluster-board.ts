import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as Connection } from 'undici';
import { asnFixtureDir } from '../helpers/board.ts';
import { Client } from '../helpers/client.ts';
import { startServerProcess, type ChildServer } from '../resilience/child-server.ts';

/**
 * A real cluster for the tests of several processes on one database: `server.ts` with
 * BOARD_WORKERS=2 as a child process (two workers, the primary with the once-jobs and the
 * metrics). Which worker answers a request is the cluster's choice per connection, so a test that
 * needs "process A" and "process B" holds one connection to each (`clientOn`), and proves where
 * it landed from the per-worker series of the primary's metrics.
 */
export interface ClusterBoard {
  url: string;
  metricsUrl: string;
  dataDir: string;
  child: ChildServer;
  /** A client on one connection, on worker "1" or "2" (opens connections until one lands there). */
  clientOn(worker: string, ip?: string): Promise<Client>;
  /** The worker a client's connection reaches now. */
  workerOf(client: Client): Promise<string>;
  scrape(): Promise<Map<string, number>>;
  /** SIGTERM and wait: the exit code (or signal) of the primary. */
  stop(): Promise<number | string>;
  /** Stops (if still running) and removes the data folder. */
  close(): Promise<void>;
}

export async function startCluster(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'board-cluster-'))): Promise<ClusterBoard> {
  const child = await startServerProcess(dataDir, { BOARD_WORKERS: '2', BOARD_METRICS_PORT: '0', BOARD_ASN_DB: asnFixtureDir, ...env });
  const metricsUrl = await waitForLine(child, /board: metrics on (http:\/\/[\d.]+:\d+)\/metrics/);
  const connections: Connection[] = [];
  let stopped: Promise<number | string> | undefined;

  const scrape = async () => {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    const series = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
    }
    return series;
  };
  const healthCounts = async () => {
    const counts = new Map<string, number>();
    for (const [name, value] of await scrape()) {
      const worker = /^board_http_request_duration_seconds_count\{route="\/api\/health",method="GET",status="2xx",worker="(\d+)"\}$/.exec(name)?.[1];
      if (worker) counts.set(worker, value);
    }
    return counts;
  };
  const workerOf = async (client: Client) => {
    const before = await healthCounts();
    assert.equal((await client.get('/api/health')).status, 200);
    const after = await healthCounts();
    const moved = [...after].filter(([worker, n]) => n !== (before.get(worker) ?? 0)).map(([worker]) => worker);
    assert.equal(moved.length, 1, `one worker answered: ${JSON.stringify([...after])}`);
    return moved[0]!;
  };
  const board: ClusterBoard = {
    url: child.url, metricsUrl, dataDir, child, scrape, workerOf,
    async clientOn(worker, ip) {
      for (let attempt = 0; attempt < 20; attempt++) {
        // One connection, kept open between requests (the server closes an idle one after 5 s).
        const connection = new Connection(child.url, { pipelining: 1, keepAliveTimeout: 4_000 });
        connections.push(connection);
        const client = new Client(child.url, ip, connection);
        if (await workerOf(client) === worker) return client;
      }
      throw new Error(`no connection reached worker ${worker}`);
    },
    stop() {
      stopped ??= (child.process.kill('SIGTERM'), child.exited);
      return stopped;
    },
    async close() {
      await Promise.all(connections.map((c) => c.destroy()));
      await board.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return board;
}

/** Waits for a line of the child's output; returns the regexp's first group. */
export async function waitForLine(child: ChildServer, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match[1] ?? match[0];
    if (Date.now() > deadline) throw new Error(`no line ${pattern} within ${timeoutMs} ms:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The pids of a process's children (the cluster's workers), from /proc. */
export function childPids(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}
