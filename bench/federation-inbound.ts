// A flood of 10,000 inbound activities from one instance (docs/API.md "What comes in") at the
// shipped BOARD_LIMITS: a fake instance on 127.0.0.1 in a child process of its own
// (bench/federation-inbound-sender.ts, as bench/federation-delivery.ts runs its fake instances)
// sends `Like`s from 100 actors, 50 at a time, signed while the door lets them past (its share of
// verified activities, 300 a minute) and unsigned once it answers 429; an honest reader in this
// process, the board's, reads the feed (one GET /api/entry/feed/0 after the other) while quiet and
// while the flood lasts. Prints the answers by status, the flood's time, the reader's p50/p99 quiet
// and during the flood with their ratio, whose ceiling is 2×, the same for the reads after the door's
// first 429 (the refusals' cost apart from the verified share's), and the board's event loop delay.
// Bounded: FLOOD_COUNT activities (default 10,000) or FLOOD_SECONDS (default 300), whichever ends first:
// the board holds its refusals (docs/API.md "What comes in", "The pace"), so the 10,000 take minutes.
// `make bench-federation-inbound`; results go in bench/results.md by hand.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { changeInstance } from '../lib/federation/instances.ts';
import { administrator } from '../lib/modlog/modlog.ts';
import { member, startBoard } from '../test/helpers.ts';
import { quantile, sequentialReads } from './harness.ts';
import { federatedEnv, freePorts, quickFederation } from '../test/helpers/federation.ts';
import type { FloodDone, FloodOrder } from './federation-inbound-sender.ts';

const ceiling = 2;
const entries = 30;

const [boardPort, fakePort] = await freePorts(2);
const sender = spawn(
  process.execPath,
  ['--import', 'tsx', new URL('./federation-inbound-sender.ts', import.meta.url).pathname, String(fakePort)],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
await once(sender, 'message');
/** Sends `order` to the sender and waits for its answer. */
async function ask<T>(order: Record<string, FloodOrder>): Promise<T> {
  sender.send(order);
  const [answer] = (await once(sender, 'message')) as [T];
  return answer;
}

const board = await startBoard(federatedEnv(boardPort!, [boardPort!, fakePort!]), {
  port: boardPort,
  // The inbox's real pace: refusals held as the board holds them.
  federation: { ...quickFederation, inboxPace: {} },
});
changeInstance(board.app.services.db, `127.0.0.1:${fakePort}`, 'allow', administrator, board.clock.now());
const anna = await member(board, 'Anna');
for (let i = 0; i < entries; i++) await anna.postMultipart('/api/entry/create', { content: `Vorher ${i}` });
const order: FloodOrder = {
  inbox: `${board.url}/ap/inbox`,
  origin: board.config.origin,
  entries,
  count: Number(process.env.FLOOD_COUNT ?? 10_000),
  limitMs: Number(process.env.FLOOD_SECONDS ?? 300) * 1000,
  senders: 50,
};
// Fedify is loaded, and the fake's key fetched once, before anything is timed.
await ask({ warm: order });

const reads = (done: () => boolean, atLeast: number) => sequentialReads(`${board.url}/api/entry/feed/0`, done, atLeast);

// The reader and the board warm up first (JIT, the feed's cache), so the quiet sample is the board at rest, not starting.
await reads(() => true, 500);
const quiet = await reads(() => true, 500);
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
let result: FloodDone | undefined;
const flood = ask<{ done: FloodDone }>({ flood: order }).then((answer) => (result = answer.done));
// The reads during the flood, each with the time it ended: split at the door's first refusal below.
const timed: { at: number; ms: number }[] = [];
while (timed.length < 50 || result === undefined) {
  const started = performance.now();
  const answer = await fetch(`${board.url}/api/entry/feed/0`);
  await answer.arrayBuffer();
  timed.push({ at: Date.now(), ms: performance.now() - started });
}
await flood;
loop.disable();
const sorted = (rows: typeof timed) => rows.map((row) => row.ms).sort((x, y) => x - y);
const busy = sorted(timed);
const refusing = sorted(timed.filter((row) => row.at > result!.firstRefusalAt));

const p99 = { quiet: quantile(quiet, 0.99), busy: quantile(busy, 0.99) };
const ratio = p99.busy / p99.quiet;
console.log(
  `activities ${result!.sent} in ${(result!.ms / 1000).toFixed(1)} s: ${result!.statuses.map(([s, n]) => `${s} ×${n}`).join(', ')}`,
);
console.log(
  `queued past the door: ${board.app.services.db.value('SELECT count(*) FROM fedify_queue')} waiting at the end`,
);
console.log(
  `feed quiet: p50 ${quantile(quiet, 0.5).toFixed(1)} ms, p99 ${p99.quiet.toFixed(1)} ms (${quiet.length} reads)`,
);
console.log(
  `feed flood: p50 ${quantile(busy, 0.5).toFixed(1)} ms, p99 ${p99.busy.toFixed(1)} ms (${busy.length} reads)`,
);
console.log(`p99 ratio ${ratio.toFixed(2)}× (ceiling ${ceiling}×): ${ratio <= ceiling ? 'within' : 'OVER'}`);
if (refusing.length)
  console.log(
    `feed while the door refuses (after the first 429): p50 ${quantile(refusing, 0.5).toFixed(1)} ms, p99 ${quantile(refusing, 0.99).toFixed(1)} ms (${refusing.length} reads), ratio ${(quantile(refusing, 0.99) / p99.quiet).toFixed(2)}×`,
  );
console.log(`event loop delay p99 during the flood: ${(loop.percentile(99) / 1e6).toFixed(1)} ms`);
await board.close();
sender.send('exit');
process.exitCode = ratio <= ceiling ? 0 : 1;
