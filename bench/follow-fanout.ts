// What a reply costs with many followers of its thread (docs/API.md "Following threads"): a board
// of one thread 21 levels deep, N accounts following its root, then 5 replies at the bottom, each
// timed as createEntry alone (no HTTP), then its fan-out as the job runs it: batches of
// followerBatch followers, one transaction each (lib/notifications/thread-replies.ts), timed one by
// one. The first reply tells every follower (a row each); the later ones find every follower with
// an unread notification and write nothing. Printed per size: followers, told by the first reply,
// the first reply's create, the later creates (ms), the first reply's batches (count, median,
// longest, total ms) and the longest batch of the later replies (ms): the longest a write waits
// behind this work.
// `node --import tsx bench/follow-fanout.ts`; results go in bench/results.md by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../lib/db/db.ts';
import { migrate } from '../lib/db/schema.ts';
import { createEntry } from '../lib/entries/entries.ts';
import { followerBatch } from '../lib/product.ts';
import { tellFollowersBatch } from '../lib/notifications/thread-replies.ts';

const sizes = [0, 100, 1000, 10_000];

for (const followers of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'board-fanout-'));
  const db = openDb(join(dir, 'board.db'));
  migrate(db.raw);
  db.raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${followers + 2})
    INSERT INTO users (uid, username, username_key, name_skeleton, pass_hash, created_at)
    SELECT i, 'u' || i, 'u' || i, 'u' || i, 'x', 0 FROM n`);
  const reply = (uid: number, content: string, replyTo: number, now: number) =>
    createEntry(db, { uid, content, filepath: '', replyTo, link: '' }, now)!;
  const top = reply(1, 'Thema', 0, 1);
  let parent = top;
  for (let depth = 0; depth < 20; depth++) parent = reply(2, `Ebene ${depth}`, parent, 2);
  while (tellFollowersBatch(db, followerBatch)); // the chain's own replies told their one follower (uid 1)
  db.raw.exec(`INSERT INTO follows (uid, pid, created_at) SELECT uid, ${top}, 0 FROM users WHERE uid > 2`);
  const timed = (work: () => unknown) => {
    const start = process.hrtime.bigint();
    const result = work();
    return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  const ms: number[] = [];
  const batches: number[][] = [];
  for (let i = 0; i < 5; i++) {
    ms.push(timed(() => reply(2, `Antwort ${i}`, parent, 10 + i)).ms);
    const times: number[] = [];
    for (let batch = timed(() => tellFollowersBatch(db, followerBatch)); batch.result; ) {
      times.push(batch.ms);
      batch = timed(() => tellFollowersBatch(db, followerBatch));
    }
    batches.push(times);
  }
  const told = db.one<{ n: number }>("SELECT count(*) AS n FROM notifications WHERE kind = 'thread_reply'")!.n;
  const later = ms.slice(1).map((t) => t.toFixed(2));
  const first = batches[0]!;
  const sum = (times: number[]) => times.reduce((a, b) => a + b, 0);
  const longest = (times: number[]) => Math.max(0, ...times);
  const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
  const laterLongest = longest(batches.slice(1).flat());
  console.log(
    `| ${followers} | ${told} | ${ms[0]!.toFixed(2)} | ${later.join(' / ')} | ${first.length} | ${median(first).toFixed(2)} | ${longest(first).toFixed(2)} | ${sum(first).toFixed(2)} | ${laterLongest.toFixed(2)} |`,
  );
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
