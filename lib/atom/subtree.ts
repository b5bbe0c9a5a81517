import type { Db } from '../db/db.ts';

/**
 * The newest live entries of a subtree, newest first (/e/{pid}/feed.atom), found without reading
 * the whole subtree. Why it works: an entry's last_activity is at least the creation time of
 * everything below it (a reply moves it on every ancestor, a bump only moves it further), so it
 * bounds what a subtree can still hold. The walk keeps one queue of exact keys (an entry's own
 * created_at) and bounds (the last_activity of replies not read yet), takes the largest each
 * time, and opens a bound by reading the next page of those replies, most active first. An exact
 * key taken from the queue is newer than anything not read yet, so entries come out in order and
 * the walk stops after `count`. Pages, not all replies at once: a thread's first entry can have
 * tens of thousands of them, and the newest entries hang below a few.
 */

interface Row {
  pid: number;
  created_at: number;
  last_activity: number;
  deleted: number;
  reply_count: number;
}

/**
 * A queue item: an entry itself (`next` undefined; key its created_at), or the next page of the
 * replies of `pid`, most active first, after the reply (activity, pid) read last; key: an upper
 * bound of everything in and below them.
 */
interface Item {
  key: number;
  pid: number;
  live: boolean;
  next?: { activity: number; pid: number; size: number };
}

/**
 * Larger first; at equal keys a bound goes first (it may hide a larger pid with that created_at),
 * then the larger pid.
 */
const before = (a: Item, b: Item) =>
  a.key !== b.key ? a.key > b.key : !a.next !== !b.next ? a.next !== undefined : a.pid > b.pid;

class Queue {
  private items: Item[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: Item): void {
    const items = this.items;
    items.push(item);
    for (let i = items.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!before(items[i]!, items[up]!)) break;
      [items[i], items[up]] = [items[up]!, items[i]!];
      i = up;
    }
  }

  pop(): Item | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < items.length && before(items[left]!, items[best]!)) best = left;
      if (right < items.length && before(items[right]!, items[best]!)) best = right;
      if (best === i) break;
      [items[i], items[best]] = [items[best]!, items[i]!];
      i = best;
    }
    return top;
  }
}

/**
 * The pids of the `count` newest live entries of the subtree of `pid`, newest first. Replies are
 * read in pages, each next page of one entry twice the last (a page sorts all replies not read yet,
 * so a huge thread costs a few sorts), at most `maxReads` pages; then the walk stops with what it
 * found.
 */
export function newestInSubtree(db: Db, pid: number, count: number, maxReads: number): number[] {
  const queue = new Queue();
  const start = db.one<Row>(
    'SELECT pid, created_at, last_activity, deleted, reply_count FROM entries WHERE pid = ?',
    pid,
  );
  if (!start) return [];
  const add = (row: Row) => {
    queue.push({ key: row.created_at, pid: row.pid, live: !row.deleted });
    if (row.reply_count > 0)
      queue.push({
        key: row.last_activity,
        pid: row.pid,
        live: false,
        next: { activity: Number.MAX_SAFE_INTEGER, pid: Number.MAX_SAFE_INTEGER, size: count },
      });
  };
  add(start);
  const found: number[] = [];
  for (let reads = 0; found.length < count && queue.size > 0; ) {
    const { pid: parent, live, next } = queue.pop()!;
    if (!next) {
      if (live) found.push(parent);
      continue;
    }
    if (++reads > maxReads) break;
    const page = db.all<Row>(
      `SELECT pid, created_at, last_activity, deleted, reply_count FROM entries
       WHERE reply_to = ? AND (last_activity < ? OR (last_activity = ? AND pid < ?))
       ORDER BY last_activity DESC, pid DESC LIMIT ?`,
      parent,
      next.activity,
      next.activity,
      next.pid,
      next.size,
    );
    for (const row of page) add(row);
    const last = page.at(-1);
    if (last && page.length === next.size) {
      queue.push({
        key: last.last_activity,
        pid: parent,
        live: false,
        next: { activity: last.last_activity, pid: last.pid, size: next.size * 2 },
      });
    }
  }
  return found;
}
