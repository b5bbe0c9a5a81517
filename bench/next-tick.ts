import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basePort } from './harness.ts';
import { wrk } from './load.ts';

/**
 * Does a long-running Node process still fall into the slow state of `process.nextTick` that
 * docs/SCALING.md reported on Node 20 (10–15 % of the CPU in it instead of under 1 %, a third fewer
 * answers, seen in processes that had run about 15 minutes)? Bare node:http servers answering a
 * fixed 8 KB body (what the same-bytes ceiling of feed page 0 is, without a board), one per Node
 * binary given, all under load at the same time (wrk, 1 thread and 16 connections each) for
 * BENCH_MINUTES (default 15); each minute's answers a second per server; a CPU profile of each
 * over the last minute (node:inspector): the share of its samples in nextTick, its busiest functions.
 * `BENCH_NODES=/path/to/node20,/path/to/node24,... node --import tsx bench/next-tick.ts`
 */
const nodes = (process.env.BENCH_NODES ?? process.execPath).split(',');
const minutes = Number(process.env.BENCH_MINUTES ?? 15);
const serverCode = `
const body = Buffer.alloc(8192, 'x');
require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
  res.end(body);
}).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('ready'));
const session = new (require('node:inspector').Session)();
session.connect();
process.on('SIGUSR2', () => session.post('Profiler.enable', () => session.post('Profiler.start')));
process.on('SIGTERM', () => session.post('Profiler.stop', (err, answer) => {
  require('node:fs').writeFileSync(process.argv[2], JSON.stringify(answer.profile));
  process.exit(0);
}));
`;

interface Server {
  node: string;
  version: string;
  proc: ChildProcess;
  url: string;
  profileDir: string;
  rates: number[];
}

const servers: Server[] = [];
for (const [i, node] of nodes.entries()) {
  const profileDir = mkdtempSync(join(tmpdir(), 'next-tick-'));
  const port = basePort + 30 + i;
  const proc = spawn(node, ['-e', serverCode, String(port), join(profileDir, 'last-minute.cpuprofile')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => proc.stdout!.once('data', resolve));
  const version = String(
    await new Promise((resolve) => {
      const v = spawn(node, ['-p', 'process.version']);
      let out = '';
      v.stdout.on('data', (d: Buffer) => {
        out += d;
      });
      v.on('exit', () => resolve(out.trim()));
    }),
  );
  servers.push({ node, version, proc, url: `http://127.0.0.1:${port}`, profileDir, rates: [] });
}

for (let minute = 1; minute <= minutes; minute++) {
  if (minute === minutes) for (const server of servers) server.proc.kill('SIGUSR2');
  const results = await Promise.all(
    servers.map((server) => wrk(server.url, '/', { threads: 1, connections: 16, duration: 60 })),
  );
  for (const [k, result] of results.entries()) servers[k]!.rates.push(result.rps);
  console.log(`minute ${minute}: ${servers.map((s, k) => `${s.version} ${results[k]!.rps.toFixed(0)}/s`).join(', ')}`);
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
}
for (const server of servers) {
  await new Promise<void>((resolve) => {
    server.proc.once('exit', () => resolve());
    server.proc.kill('SIGTERM');
  });
  const profile = JSON.parse(readFileSync(join(server.profileDir, 'last-minute.cpuprofile'), 'utf8')) as {
    nodes: ProfileNode[];
  };
  const hits = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName || '(anonymous)';
    hits.set(name, (hits.get(name) ?? 0) + (node.hitCount ?? 0));
    total += node.hitCount ?? 0;
  }
  const share = (name: string) => (100 * (hits.get(name) ?? 0)) / total;
  const top = [...hits]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, n]) => `${name} ${((100 * n) / total).toFixed(1)} %`)
    .join(', ');
  const first = server.rates[0]!;
  const last = server.rates.at(-1)!;
  console.log(
    `${server.version}: first minute ${first.toFixed(0)}/s, last ${last.toFixed(0)}/s (${(last / first).toFixed(2)} ×); nextTick ${share('nextTick').toFixed(2)} % of ${total} samples in the last minute; busiest: ${top}`,
  );
}
