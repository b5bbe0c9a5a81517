import type { Db } from '../db/db.ts';
import { indexRow, indexRowSql } from '../text/search-terms.ts';

/**
 * The search index (docs/API.md "Search"): the FTS5 table `search`, one row per live entry, rowid =
 * pid. Every write that makes an entry live, changes its text or ends it calls one of the functions
 * below inside its own transaction, so a search never sees an entry the feed would not show.
 * Contentless with contentless_delete (the text stays in `entries`); the trigram tokenizer makes
 * every 3-character substring a term, so "kraftwerk" finds "Balkonkraftwerke". Columns
 * (lib/text/search-terms.ts): `text` (the text and the image's description), `short` (words of 1–2
 * characters, which trigrams cannot hold, each one term) and `author` (the uid as one term, so
 * `user=` narrows inside the index). Pids below `search_backfill.next_below` wait for the backfill
 * (lib/search/backfill.ts) and are left alone here: FTS5 cannot tell whether a contentless row
 * exists, and inserting one that is there, or deleting one that is not, would corrupt its lists.
 */

export interface IndexedEntry {
  pid: number;
  uid: number;
  content: string;
  alt: string;
}

function insertRow(db: Db, entry: IndexedEntry): void {
  db.run(indexRowSql, ...indexRow(entry));
}

function isIndexedRange(db: Db, pid: number): boolean {
  const backfill = db.one<{ next_below: number }>('SELECT next_below FROM search_backfill');
  return !backfill || pid >= backfill.next_below;
}

/**
 * The three changes below go through db.beforeCommit: inside a batched create they run after the
 * batch's savepoints, so FTS5 writes one index segment per batch instead of one per create; in
 * any other transaction at once. Either way in the write's transaction, in the order asked.
 */

export function indexEntry(db: Db, entry: IndexedEntry): void {
  if (isIndexedRange(db, entry.pid)) db.beforeCommit(() => insertRow(db, entry));
}

/** A live entry leaves the index (delete, removal, account deletion); call it while the entry is still live. */
export function unindexEntry(db: Db, pid: number): void {
  if (isIndexedRange(db, pid)) db.beforeCommit(() => db.run('DELETE FROM search WHERE rowid = ?', pid));
}

export function reindexEntry(db: Db, entry: IndexedEntry): void {
  if (!isIndexedRange(db, entry.pid)) return;
  db.beforeCommit(() => {
    db.run('DELETE FROM search WHERE rowid = ?', entry.pid);
    insertRow(db, entry);
  });
}

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
  return changes() - before > 1;
}
