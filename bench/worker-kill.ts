import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { basePort, startBoard, stop } from './harness.ts';

/**
 * Two workers (BOARD_WORKERS=2) under a read load of feed page 0: how the connections spread over
 * the workers, and what clients see when one worker is killed (SIGKILL) in the middle of it.
 * `BENCH_BEFORE=<checkout> node --import tsx bench/worker-kill.ts <board copy>` runs the same on
 * the other checkout's code first (the round-robin of node:cluster before reusePort).
 * The load: 24 clients that open a new connection for each request (each request is a connection
 * the kernel or the primary places) and 8 that keep theirs (keep-alive; a new one after an error).
 * Per worker, the requests it answered, from the primary's metrics. The kill: 3 s of load, SIGKILL
 * to worker 1, 4 s more; every failed request is counted by its error, and the seconds until the
 * replacement serves are measured from the primary's log.
 */
const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: [BENCH_BEFORE=<checkout>] bench/worker-kill.ts <board copy>');
const path = '/api/entry/feed/0';

interface Tally {
  ok: number;
  failed: Map<string, number>;
}

/** One request; resolves with its error code or 'ok'. */
function get(port: number, keepAlive: boolean, agent: import('node:http').Agent | undefined): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: keepAlive ? agent : false,
        headers: { 'x-forwarded-for': '10.9.9.9', connection: keepAlive ? 'keep-alive' : 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? 'ok' : `status ${res.statusCode}`));
        res.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.setTimeout(5_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.end();
  });
}

/** Runs the load until `until` resolves; tallies per phase (the phase is read at each answer). */
async function runLoad(port: number, phase: () => string, until: Promise<void>): Promise<Map<string, Tally>> {
  const tallies = new Map<string, Tally>();
  let done = false;
  void until.then(() => {
    done = true;
  });
  const { Agent } = await import('node:http');
  const loop = async (keepAlive: boolean) => {
    const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: 1 }) : undefined;
    while (!done) {
      const result = await get(port, keepAlive, agent);
      const name = `${phase()} ${keepAlive ? 'keep-alive' : 'new connection'}`;
      const tally = tallies.get(name) ?? { ok: 0, failed: new Map() };
      tallies.set(name, tally);
      if (result === 'ok') tally.ok++;
      else tally.failed.set(result, (tally.failed.get(result) ?? 0) + 1);
    }
    agent?.destroy();
  };
  await Promise.all([...Array.from({ length: 24 }, () => loop(false)), ...Array.from({ length: 8 }, () => loop(true))]);
  return tallies;
}

async function perWorker(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^board_http_request_duration_seconds_count\{[^}]*worker="(\d+)"\} (\d+)$/gm)) {
    counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return counts;
}

function workerPid(primary: number, index: string): number {
  const children = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/).map(Number);
  return children.find((pid) =>
    readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BOARD_WORKER_INDEX=${index}`),
  )!;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function measure(label: string, codeRoot?: string): Promise<void> {
  const port = basePort + 20;
  const metricsPort = basePort + 21;
  const board = await startBoard(dir!, port, { BOARD_WORKERS: '2', BOARD_METRICS_PORT: String(metricsPort) }, codeRoot);
  try {
    // Balance: 5 s of load, the requests each worker answered.
    const before = await perWorker(metricsPort);
    await runLoad(port, () => 'balance', sleep(5_000));
    const after = await perWorker(metricsPort);
    const answered = [...after].map(([worker, n]) => [worker, n - (before.get(worker) ?? 0)] as const).sort();
    const total = answered.reduce((sum, [, n]) => sum + n, 0);
    console.log(
      `${label}: balance over 5 s: ${answered.map(([worker, n]) => `worker ${worker} ${n} (${((100 * n) / total).toFixed(0)} %)`).join(', ')}`,
    );

    // The kill.
    let phase = 'before the kill';
    const killedAt = { ms: 0 };
    const loadDone = (async () => {
      await sleep(3_000);
      const victim = workerPid(board.proc.pid!, '1');
      phase = 'after the kill';
      killedAt.ms = performance.now();
      process.kill(victim, 'SIGKILL');
      await sleep(4_000);
    })();
    const tallies = await runLoad(port, () => phase, loadDone);
    for (const [name, tally] of [...tallies].sort()) {
      const failed = [...tally.failed].map(([code, n]) => `${n} ${code}`).join(', ') || 'none';
      console.log(`${label}: ${name}: ${tally.ok} answered, failed: ${failed}`);
    }
  } finally {
    await stop(board.proc);
  }
}

const before = process.env.BENCH_BEFORE;
if (before) await measure('before (round-robin)', before);
await measure(before ? 'after (reusePort)' : 'this checkout', join(import.meta.dirname, '..'));
