// A flood of 10,000 inbound activities from one instance (docs/API.md "What comes in") at the
// shipped BOARD_LIMITS: a fake instance on 127.0.0.1 (test/helpers/fake-instance.ts) sends `Like`s
// from 100 actors, 50 at a time, signed while the door lets them past (its share of verified
// activities, 300 a minute) and unsigned once it answers 429, as a flooding server's retries would
// come; an honest reader reads the feed (one GET /api/entry/feed/0 after the other) while quiet and
// while the flood lasts. Prints the answers by status, the flood's time, and the reader's p50/p99
// quiet and during the flood with their ratio, whose ceiling is 2×.
// Bounded: FLOOD_COUNT activities (default 10,000) or FLOOD_SECONDS (default 120), whichever ends first.
// `make bench-federation-inbound`; results go in bench/results.md by hand.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { changeInstance } from '../lib/federation/instances.ts';
import { administrator } from '../lib/modlog/modlog.ts';
import { member, startBoard } from '../test/helpers.ts';
import { quantile, sequentialReads } from './harness.ts';
import { startFakeInstance } from '../test/helpers/fake-instance.ts';
import { federatedEnv, freePorts, quickFederation } from '../test/helpers/federation.ts';

const count = Number(process.env.FLOOD_COUNT ?? 10_000);
const limitMs = Number(process.env.FLOOD_SECONDS ?? 120) * 1000;
const senders = 50;
const ceiling = 2;

const [boardPort, fakePort] = await freePorts(2);
const fake = await startFakeInstance(fakePort!);
const board = await startBoard(federatedEnv(boardPort!, [boardPort!, fakePort!]), {
  port: boardPort,
  federation: quickFederation,
});
changeInstance(board.app.services.db, fake.host, 'allow', administrator, board.clock.now());
const anna = await member(board, 'Anna');
for (let i = 0; i < 30; i++) await anna.postMultipart('/api/entry/create', { content: `Vorher ${i}` });
// Fedify is loaded, and the fake's key fetched once, before anything is timed.
await fake.send(`${board.url}/ap/inbox`, like(0));

function like(i: number) {
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: fake.nextId(),
    type: 'Like',
    actor: fake.actorOf(`flut${i % 100}`),
    object: `${board.config.origin}/e/${1 + (i % 30)}`,
  };
}

const reads = (done: () => boolean, atLeast: number) => sequentialReads(`${board.url}/api/entry/feed/0`, done, atLeast);

const quiet = await reads(() => true, 500);
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const statuses = new Map<number, number>();
let sent = 0;
let signing = true;
let floodDone = false;
const started = performance.now();
const flood = Promise.all(
  Array.from({ length: senders }, async () => {
    while (sent < count && performance.now() - started < limitMs) {
      const i = ++sent;
      const answer = await fake.send(`${board.url}/ap/inbox`, like(i), { key: signing ? 'own' : 'none' });
      if (answer.status === 429) signing = false;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
  }),
).then(() => {
  floodDone = true;
});
const busy = await reads(() => floodDone, 50);
await flood;
const floodMs = performance.now() - started;
loop.disable();

const p99 = { quiet: quantile(quiet, 0.99), busy: quantile(busy, 0.99) };
const ratio = p99.busy / p99.quiet;
console.log(
  `activities ${sent} in ${(floodMs / 1000).toFixed(1)} s: ${[...statuses].map(([s, n]) => `${s} ×${n}`).join(', ')}`,
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
console.log(`event loop delay p99 during the flood: ${(loop.percentile(99) / 1e6).toFixed(1)} ms`);
await board.close();
await fake.close();
process.exitCode = ratio <= ceiling ? 0 : 1;
