import type { Db } from '../db/db.ts';
import { indexRow, indexRowSql } from '../text/search-terms.ts';

/**
 * The search index (docs/API.md "Search"): the FTS5 table `search`, one row per live entry
 * (not deleted, not removed), rowid = pid. Every write that makes an entry live, changes its
 * text or ends it calls one of the functions below inside its own transaction, so a search never
 * sees an entry the feed would not show.
 *
 * Contentless (the text stays in `entries` only) with contentless_delete, so a row goes by its
 * rowid; the trigram tokenizer makes every 3-character substring a term, case-folded, which is
 * what lets "kraftwerk" find "Balkonkraftwerke". Three columns (the terms: lib/text/search-terms.ts):
 * - `text`: the entry's text and its image's description (NFC);
 * - `short`: the entry's words of 1–2 characters, each padded to one 3-character term ("KI" →
 *   "_KI"): trigrams cannot hold them, and as whole words they mean something ("KI", "EU");
 * - `author`: the author's uid as one 3-character term, so `user=` narrows inside the index.
 *
 * Entries older than the index wait for the backfill (lib/search/backfill.ts), which indexes
 * the pids below `search_backfill.next_below`, newest first. Those pids are never in the index
 * until the backfill reaches them, so the writes here leave them alone: the backfill reads their
 * state when it gets there. Why it matters: FTS5 cannot tell whether a contentless row exists,
 * and an insert of a row that is there, or a delete of one that is not, would corrupt its lists.
 */

/** The fields an index row is made of. */
export interface IndexedEntry {
  pid: number;
  uid: number;
  content: string;
  /** The image's description ('' for none). */
  alt: string;
}

/** Adds a row for an entry that is not in the index (a new one, a restored one, one the backfill reaches). */
function insertRow(db: Db, entry: IndexedEntry): void {
  db.run(indexRowSql, ...indexRow(entry));
}

/** True when the entry's row is the index's business: it is not below the backfill's mark. */
function isIndexedRange(db: Db, pid: number): boolean {
  const backfill = db.one<{ next_below: number }>('SELECT next_below FROM search_backfill');
  return !backfill || pid >= backfill.next_below;
}

/**
 * The three changes below go through db.beforeCommit: inside a batched create they run after the
 * batch's savepoints, so FTS5 writes one index segment per batch instead of one per create; in
 * any other transaction at once. Either way in the write's transaction, in the order asked.
 */

/** A live entry joins the index: on create and on restore (call inside the write's transaction). */
export function indexEntry(db: Db, entry: IndexedEntry): void {
  if (isIndexedRange(db, entry.pid)) db.beforeCommit(() => insertRow(db, entry));
}

/** A live entry leaves the index: delete, removal, account deletion (call inside the write's transaction, while it was live). */
export function unindexEntry(db: Db, pid: number): void {
  if (isIndexedRange(db, pid)) db.beforeCommit(() => db.run('DELETE FROM search WHERE rowid = ?', pid));
}

/** A live entry's text or image description changed (an edit): its row is replaced. */
export function reindexEntry(db: Db, entry: IndexedEntry): void {
  if (!isIndexedRange(db, entry.pid)) return;
  db.beforeCommit(() => {
    db.run('DELETE FROM search WHERE rowid = ?', entry.pid);
    insertRow(db, entry);
  });
}

/**
 * The backfill's step: indexes the live entries among the next `limit` pids below the mark,
 * newest first, and moves the mark below them. Inside the caller's transaction; returns the pids
 * it looked at (0: nothing was left, the mark is gone).
 */
export function backfillBelowMark(db: Db, limit: number): number {
  // The first statement writes, so the transaction holds the write lock before it reads: two
  // processes never index the same slice.
  const mark = db.one<{ next_below: number }>(
    'UPDATE search_backfill SET next_below = next_below RETURNING next_below',
  );
  if (!mark) return 0;
  const rows = db.all<IndexedEntry & { deleted: number }>(
    'SELECT pid, uid, content, alt, deleted FROM entries WHERE pid < ? ORDER BY pid DESC LIMIT ?',
    mark.next_below,
    limit,
  );
  for (const row of rows) if (!row.deleted) insertRow(db, row);
  if (rows.length < limit) db.run('DELETE FROM search_backfill');
  else db.run('UPDATE search_backfill SET next_below = ?', rows.at(-1)!.pid);
  return rows.length;
}

/**
 * One step of merging the index's segments towards one (FTS5 'merge' with a negative page count):
 * the backfill's many small writes leave many segments, and every search reads each of them.
 * Inside the caller's transaction; true when the step did work (more may be left).
 */
export function mergeIndexStep(db: Db, pages: number): boolean {
  const changes = () => db.value('SELECT total_changes()');
  const before = changes();
  db.run("INSERT INTO search (search, rank) VALUES ('merge', ?)", -pages);
  return changes() - before > 1; // the command itself counts as one change
}
