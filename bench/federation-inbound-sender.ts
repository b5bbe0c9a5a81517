// The flooding server of bench/federation-inbound.ts, in a process of its own so that its signing
// and sending are not the board's work: a fake instance on 127.0.0.1 (test/helpers/fake-instance.ts)
// on the port argv[2] names. Over IPC: it says `ready` once it listens; `{ warm: url }` sends one
// signed Like (the board loads Fedify and fetches the key) and answers `warmed`; `{ flood: … }`
// sends Likes from 100 actors, `senders` at a time, signed until the board answers 429, then
// unsigned, as a flooding server's retries would come, and answers with the statuses; `exit` ends it.
import { performance } from 'node:perf_hooks';
import { startFakeInstance } from '../test/helpers/fake-instance.ts';

export interface FloodOrder {
  inbox: string;
  origin: string;
  entries: number;
  count: number;
  limitMs: number;
  senders: number;
}

export interface FloodDone {
  sent: number;
  ms: number;
  statuses: [number, number][];
  /** Date.now() at the first 429: from then on the door refuses the flood. */
  firstRefusalAt: number;
}

const fake = await startFakeInstance(Number(process.argv[2]));

const like = (origin: string, entries: number, i: number) =>
  fake.likeOf(`flut${i % 100}`, `${origin}/e/${1 + (i % entries)}`);

async function flood(order: FloodOrder): Promise<FloodDone> {
  const statuses = new Map<number, number>();
  let sent = 0;
  let signing = true;
  let firstRefusalAt = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: order.senders }, async () => {
      while (sent < order.count && performance.now() - started < order.limitMs) {
        const i = ++sent;
        // A connection the board closed or reset is an answer too (counted as status 0): a flooding
        // server sends again on a new one.
        const answer = await fake
          .send(order.inbox, like(order.origin, order.entries, i), { key: signing ? 'own' : 'none' })
          .catch(() => ({ status: 0 }));
        if (answer.status === 429 && signing) {
          signing = false;
          firstRefusalAt = Date.now();
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
    }),
  );
  return { sent, ms: performance.now() - started, statuses: [...statuses], firstRefusalAt };
}

process.on('message', async (message: 'exit' | { warm: FloodOrder } | { flood: FloodOrder }) => {
  if (message === 'exit') {
    await fake.close();
    process.exit(0);
  }
  if ('warm' in message) {
    const { inbox, origin, entries } = message.warm;
    const answer = await fake.send(inbox, like(origin, entries, 0));
    process.send!({ warmed: answer.status });
  } else process.send!({ done: await flood(message.flood) });
});
// The bench gone (killed, or its output cut), the sender goes too.
process.on('disconnect', () => process.exit(0));
process.send!('ready');
