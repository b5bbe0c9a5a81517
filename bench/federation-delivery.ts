// One entry delivered to 10,000 followers on 200 instances (docs/OPERATIONS.md "Federation"): a
// board with BOARD_FEDERATION=open on loopback, 200 fake instances (node:http servers on
// 127.0.0.1, in a child process, that take every POST with 202), 50 followers on each, all following the board's Group
// through their instance's shared inbox. Prints the POSTs sent, the time from the create's answer
// until nothing waits, the process's memory before and after (RSS with its peak, heap), and the feed's p50/p99
// for an honest reader (one GET /api/entry/feed/0 after the other) while quiet and while the
// queue drains, and their ratio against its ceiling: the drain's p99 stays within twice the quiet one.
// `node --import tsx bench/federation-delivery.ts`; results go in bench/results.md by hand.
// FED_INSTANCES and FED_FOLLOWERS (per instance) change the sizes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { member, startBoard } from '../test/helpers.ts';
import { quantile, sequentialReads } from './harness.ts';
import { federatedEnv, freePorts, storeFollower } from '../test/helpers/federation.ts';

const instances = Number(process.env.FED_INSTANCES ?? 200);
const perInstance = Number(process.env.FED_FOLLOWERS ?? 50);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const ports = await freePorts(instances + 1);
const [boardPort, ...instancePorts] = ports;
// The fake instances run in a process of their own, so their work is not the board's: the board's
// process holds only the board and the one reader, as a board and its readers would be.
const fakes = spawn(
  process.execPath,
  [
    '-e',
    `const { createServer } = require('node:http');
     let posts = 0;
     const ports = process.argv.slice(1).map(Number);
     let listening = 0;
     for (const port of ports)
       createServer((req, res) => {
         req.resume();
         req.on('end', () => { posts++; res.writeHead(202).end(); });
       }).listen(port, '127.0.0.1', () => { if (++listening === ports.length) process.send('ready'); });
     process.on('message', (m) => (m === 'count' ? process.send(posts) : process.exit(0)));`,
    ...instancePorts.map(String),
  ],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
await once(fakes, 'message');
/** POSTs the fake instances have taken so far. */
async function postsTaken(): Promise<number> {
  fakes.send('count');
  const [count] = (await once(fakes, 'message')) as [number];
  return count;
}

const board = await startBoard(
  { ...federatedEnv(boardPort!, ports, 'open'), BOARD_LIMITS: '0' },
  { port: boardPort, federation: { delivery: { pollMs: 50 } } },
);
const db = board.app.services.db;
db.tx(() => {
  for (const port of instancePorts)
    for (let i = 0; i < perInstance; i++) {
      storeFollower(
        db,
        { host: `127.0.0.1:${port}`, name: String(i), sharedInbox: `http://127.0.0.1:${port}/inbox` },
        0,
      );
    }
});
const anna = await member(board, 'Anna');
for (let i = 0; i < 30; i++) await anna.postMultipart('/api/entry/create', { content: `Vorher ${i}` });
// Fedify and the Group's keys are loaded and made before anything is timed.
await fetch(`${board.url}/ap/actor/board`, { headers: { accept: 'application/activity+json' } });
const waiting = () =>
  db.value('SELECT count(*) FROM federation_deliveries') + db.value('SELECT count(*) FROM federation_outbox');
while (waiting() > 0) await new Promise((resolve) => setTimeout(resolve, 50));
const postsBefore = await postsTaken();

const reads = (done: () => boolean, atLeast: number) => sequentialReads(`${board.url}/api/entry/feed/0`, done, atLeast);

/** The event loop's delay (p99, ms) while `run` runs: whether the board's own process was held up. */
async function withLoopDelay<T>(run: () => Promise<T>): Promise<[T, number]> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const result = await run();
  delay.disable();
  return [result, delay.percentile(99) / 1e6];
}

const [quiet, quietLoop] = await withLoopDelay(() => reads(() => true, 500));
const before = process.memoryUsage();
let peakRss = before.rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
const started = performance.now();
const created = await anna.postMultipart('/api/entry/create', { content: 'Hallo an 10.000 Folgende' });
if (created.status !== 201) throw new Error(`create: ${created.status}`);
let drainedAt = 0;
const [busy, busyLoop] = await withLoopDelay(() =>
  reads(() => {
    if (waiting() > 0) return false;
    drainedAt ||= performance.now();
    return true;
  }, 50),
);
const after = process.memoryUsage();
clearInterval(sampler);

const posts = (await postsTaken()) - postsBefore;
console.log(`instances ${instances}, followers ${instances * perInstance}, POSTs ${posts}`);
console.log(`queue empty ${(drainedAt - started).toFixed(0)} ms after the create was sent`);
console.log(
  `memory: RSS ${mb(before.rss)} -> ${mb(after.rss)} (peak ${mb(peakRss)}), heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)}`,
);
console.log(
  `feed quiet: p50 ${quantile(quiet, 0.5).toFixed(1)} ms, p99 ${quantile(quiet, 0.99).toFixed(1)} ms (${quiet.length} reads)`,
);
console.log(
  `feed draining: p50 ${quantile(busy, 0.5).toFixed(1)} ms, p99 ${quantile(busy, 0.99).toFixed(1)} ms (${busy.length} reads)`,
);
console.log(`event loop delay p99: quiet ${quietLoop.toFixed(1)} ms, draining ${busyLoop.toFixed(1)} ms`);
const ratio = quantile(busy, 0.99) / quantile(quiet, 0.99);
console.log(`feed p99 draining / quiet: ${ratio.toFixed(2)} (ceiling 2): ${ratio <= 2 ? 'within' : 'OVER'}`);
await board.close();
fakes.send('exit');
