// What a reply's create costs with many followers of its thread (docs/API.md "Following threads"):
// a board of one thread 21 levels deep, N accounts following its root, then 5 replies at the
// bottom, each timed as createEntry alone (no HTTP). The first reply tells every follower (a row
// each); the later ones find every follower with an unread notification and write nothing.
// `node --import tsx bench/follow-fanout.ts`; results go in bench/results.md by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../lib/db/db.ts';
import { migrate } from '../lib/db/schema.ts';
import { createEntry } from '../lib/entries/entries.ts';

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
  db.raw.exec(`INSERT INTO follows (uid, pid, created_at) SELECT uid, ${top}, 0 FROM users WHERE uid > 2`);
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    reply(2, `Antwort ${i}`, parent, 10 + i);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const told = db.one<{ n: number }>("SELECT count(*) AS n FROM notifications WHERE kind = 'thread_reply'")!.n;
  const later = ms.slice(1).map((t) => t.toFixed(2));
  console.log(`| ${followers} | ${told} | ${ms[0]!.toFixed(2)} | ${later.join(' / ')} |`);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
