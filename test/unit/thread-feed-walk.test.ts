import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atomFeedSize } from '../../lib/product.ts';
import { threadFeedEntries } from '../../lib/atom/feeds.ts';
import { openDb, type Db } from '../../lib/db/db.ts';
import { bumpEntry, createEntry, softDeleteEntry } from '../../lib/entries/entries.ts';
import { removeEntry, restoreEntry } from '../../lib/moderation/entries.ts';
import { prng } from '../helpers/prng.ts';

/**
 * lib/atom/subtree.ts through threadFeedEntries: the best-first walk down a subtree finds exactly
 * the 50 newest live entries, compared with reading every entry of the subtree, on random threads
 * with deep chains, equal creation times, bumps, removals, restores and deletions; it reads the
 * replies of no entry but those whose last_activity reaches the 50th newest's creation.
 */

interface Row {
  pid: number;
  reply_to: number;
  reply_count: number;
  created_at: number;
  last_activity: number;
  deleted: number;
}

/** The answer read the slow way: every entry below `pid` (itself included), live ones, newest first. */
function everyEntryBelow(rows: Row[], pid: number): Row[] {
  const children = new Map<number, Row[]>();
  for (const row of rows) children.set(row.reply_to, [...(children.get(row.reply_to) ?? []), row]);
  const subtree: Row[] = [];
  const stack = [rows.find((row) => row.pid === pid)!];
  while (stack.length) {
    const row = stack.pop()!;
    subtree.push(row);
    stack.push(...(children.get(row.pid) ?? []));
  }
  return subtree;
}

const newestFirst = (a: Row, b: Row) => b.created_at - a.created_at || b.pid - a.pid;

function randomBoard(db: Db, seed: number): void {
  const random = prng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  let now = 1_800_000_000;
  const live: number[] = [];
  for (let i = 0; i < 1200; i++) {
    now += Math.floor(random() * 3); // equal creation times are common
    const roll = random();
    if (live.length === 0 || roll < 0.01) {
      live.push(createEntry(db, { uid: 1 + (i % 5), content: `Thema ${i}`, filepath: '', replyTo: 0, link: '' }, now)!);
    } else if (roll < 0.85) {
      // Mostly near the newest entries: deep chains as a discussion makes them.
      const parent = random() < 0.6 ? live[Math.max(0, live.length - 1 - Math.floor(random() * 3))]! : pick(live);
      const pid = createEntry(
        db,
        { uid: 1 + (i % 5), content: `Antwort ${i}`, filepath: '', replyTo: parent, link: '' },
        now,
      );
      if (pid) live.push(pid);
    } else if (roll < 0.9) {
      bumpEntry(db, pick(live), 1, now);
    } else if (roll < 0.95) {
      const pid = pick(live);
      removeEntry(db, pid, 'Test', 0, now);
      if (random() < 0.3) restoreEntry(db, pid, 0, now);
    } else {
      softDeleteEntry(db, pick(live), now);
    }
  }
}

test('the walk finds exactly the 50 newest live entries of any subtree and reads the replies of only the entries that can hold them', () => {
  let pruned = 0;
  for (const seed of [1, 2, 3, 4, 5]) {
    const db = openDb(':memory:');
    try {
      randomBoard(db, seed);
      const rows = db.all<Row>('SELECT pid, reply_to, reply_count, created_at, last_activity, deleted FROM entries');
      const starts = rows.filter((row) => !row.deleted && (row.reply_to === 0 || row.pid % 7 === 0));
      for (const start of starts) {
        const subtree = everyEntryBelow(rows, start.pid);
        const expected = subtree
          .filter((row) => !row.deleted)
          .sort(newestFirst)
          .slice(0, atomFeedSize);
        // The fewest pages the walk must read: those of the entries whose last_activity reaches the
        // 50th newest's creation, and of their replies as far as those reach it (pages of 50, 100, 200...).
        const oldest = expected.at(-1)!.created_at;
        let reads = 0;
        for (const row of subtree.filter((r) => r.reply_count > 0 && r.last_activity >= oldest)) {
          const reaching = rows.filter((r) => r.reply_to === row.pid && r.last_activity >= oldest).length;
          reads++;
          for (let read = atomFeedSize, size = atomFeedSize * 2; read <= reaching; read += size, size *= 2) reads++;
        }
        const found = threadFeedEntries(db, start.pid, reads).map((entry) => entry.pid);
        const label = `seed ${seed}, subtree of ${start.pid} (${subtree.length} entries, ${reads} reads)`;
        assert.deepEqual(
          found,
          expected.map((row) => row.pid),
          label,
        );
        assert.deepEqual(
          threadFeedEntries(db, start.pid).map((entry) => entry.pid),
          found,
          `${label}, with the default bound`,
        );
        if (expected.length === atomFeedSize && reads > 0) {
          assert.notDeepEqual(
            threadFeedEntries(db, start.pid, reads - 1).map((entry) => entry.pid),
            found,
            `${label}: one read fewer is not enough`,
          );
        }
        if (reads < subtree.filter((row) => row.reply_count > 0).length) pruned++;
      }
    } finally {
      void db.close();
    }
  }
  assert.ok(pruned >= 20, `the walk left part of ${pruned} subtrees unread: the bound was put to the test`);
});
