import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { Client as Connection } from 'undici';
import { asnFixtureDir } from './board.ts';
import { Client } from './client.ts';
import { startServerProcess, type ChildServer } from './child-server.ts';
import { emptyFolder } from './folders.ts';
import { hangBoundMs } from './hang-bound.ts';
import { childPids } from './processes.ts';

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

export async function startCluster(
  env: Record<string, string> = {},
  dataDir = emptyFolder('board-cluster-'),
): Promise<ClusterBoard> {
  const child = await startServerProcess(dataDir, {
    BOARD_WORKERS: '2',
    BOARD_METRICS_PORT: '0',
    BOARD_ASN_DB: asnFixtureDir,
    ...env,
  });
  let metricsUrl: string;
  try {
    metricsUrl = await waitForLine(child, /board: metrics on (http:\/\/[\d.]+:\d+)\/metrics/);
  } catch (err) {
    // No board to hand back, so nobody else would stop it: SIGKILL to the workers and the primary by pid.
    for (const pid of childPids(child.process.pid!)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {} // gone already
    }
    child.process.kill('SIGKILL');
    await child.exited;
    throw err;
  }
  const connections: Connection[] = [];
  let stopped: Promise<number | string> | undefined;

  const scrapeOnce = async () => {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    const series = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
    }
    return series;
  };
  const workersIn = (series: Map<string, number>) =>
    new Set([...series.keys()].map((name) => /worker="(\d+)"/.exec(name)?.[1]).filter(Boolean)).size;
  // The primary leaves a worker that is slow to answer out of that scrape (a loaded machine makes
  // any worker slow): ask again until every serving worker is in it, or return the last one.
  const scrape = async () => {
    const deadline = Date.now() + hangBoundMs;
    for (;;) {
      const series = await scrapeOnce();
      if (workersIn(series) >= (series.get('board_workers') ?? 0) || Date.now() > deadline) return series;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const healthCounts = async () => {
    const counts = new Map<string, number>();
    for (const [name, value] of await scrape()) {
      const worker =
        /^board_http_request_duration_seconds_count\{route="\/api\/health",method="GET",status="2xx",worker="(\d+)"\}$/.exec(
          name,
        )?.[1];
      if (worker) counts.set(worker, value);
    }
    return counts;
  };
  // One look at a time: each compares the per-worker counts of /api/health before and after its request.
  let lookups: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const turn = lookups.then(work);
    lookups = turn.catch(() => {});
    return turn;
  };
  const lookUp = async (client: Client) => {
    const before = await healthCounts();
    assert.equal((await client.get('/api/health')).status, 200);
    for (let attempt = 0; ; attempt++) {
      const after = await healthCounts();
      const moved = [...after].filter(([worker, n]) => n !== (before.get(worker) ?? 0)).map(([worker]) => worker);
      if (moved.length === 1) return moved[0]!;
      // The metrics count a request when its answer is handed to the socket: a moment later at most.
      if (moved.length > 1 || attempt === 10)
        throw new Error(`not one worker answered: ${JSON.stringify([...before])} → ${JSON.stringify([...after])}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const workerOf = (client: Client) => oneAtATime(() => lookUp(client));
  const board: ClusterBoard = {
    url: child.url,
    metricsUrl,
    dataDir,
    child,
    scrape,
    workerOf,
    clientOn: (worker, ip) =>
      oneAtATime(async () => {
        // A worker that is being replaced gets connections once it listens: keep trying for a while.
        for (const deadline = Date.now() + hangBoundMs; Date.now() < deadline; ) {
          // One connection, kept open between requests (the server closes an idle one after 5 s).
          const connection = new Connection(child.url, { pipelining: 1, keepAliveTimeout: 4_000 });
          const client = new Client(child.url, ip, connection);
          if ((await lookUp(client)) === worker) {
            connections.push(connection);
            return client;
          }
          await connection.close();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`no connection reached worker ${worker}:\n${child.output().split('\n').slice(-30).join('\n')}`);
      }),
    stop() {
      if (!stopped) {
        child.process.kill('SIGTERM');
        stopped = child.exited;
      }
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
export async function waitForLine(child: ChildServer, pattern: RegExp, timeoutMs = hangBoundMs): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match[1] ?? match[0];
    if (Date.now() > deadline) throw new Error(`no line ${pattern} within ${timeoutMs} ms:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Which of these processes hold a listening TCP socket on the port, and how many each: the
 * sockets in state LISTEN of /proc/net/tcp and tcp6, found among each process's open files.
 */
export function listeningSocketsOn(port: number, pids: number[]): Map<number, number> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address "ADDR:PORT" in hex, state 0A = LISTEN, inode in the tenth column
      if (fields[3] === '0A' && parseInt(fields[1]!.split(':')[1]!, 16) === port) inodes.add(fields[9]!);
    }
  }
  const held = new Map<number, number>();
  for (const pid of pids) {
    let count = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '')) count++;
      } catch {
        // closed while we looked
      }
    }
    held.set(pid, count);
  }
  return held;
}
