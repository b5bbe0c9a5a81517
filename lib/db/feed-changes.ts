import type { Db } from '../db/db.ts';

/**
 * When each Atom feed last lost or changed something that its entries' own times cannot show
 * (docs/API.md "Atom feeds"): an entry removed, deleted or restored, an author renamed or gone, a
 * mute. A feed's `updated` and Last-Modified are the newest of its entries' times and of these, so
 * they never go back and move on every change to what the feed shows. Why in the database (table
 * feed_changes) and in the change's own transaction: every server process and board-admin see the
 * same time as soon as they see the change, and a time only ever grows (max), whichever process's
 * clock wrote it.
 *
 * | kind    | id   | moved by                                             | read by                          |
 * |---------|------|------------------------------------------------------|----------------------------------|
 * | board   | 0    | a top-level entry leaves or comes back               | /feed.atom                       |
 * | thread  | root | an entry of the thread leaves or comes back          | /e/{pid}/feed.atom of the thread |
 * | user    | uid  | an entry of the account leaves or comes back         | /u/{username}/feed.atom          |
 * | entries | 0    | any entry leaves or comes back                       | /n/{token}.atom (any thread)     |
 * | notices | uid  | the account mutes or unmutes someone                 | that account's /n/{token}.atom   |
 * | every   | 0    | a rename, an account deletion (names in every feed)  | every feed                       |
 */
type Kind = 'board' | 'thread' | 'user' | 'entries' | 'notices' | 'every';

function moved(db: Db, kind: Kind, id: number, now: number): void {
  db.run(
    `INSERT INTO feed_changes (kind, id, changed_at) VALUES (?, ?, ?)
     ON CONFLICT (kind, id) DO UPDATE SET changed_at = max(changed_at, excluded.changed_at)`,
    kind,
    id,
    now,
  );
}

/** An entry left the feeds (removed, deleted, its account's removal) or came back (restored); call inside that transaction. */
export function entryFeedsChanged(db: Db, entry: { root: number; uid: number; reply_to: number }, now: number): void {
  if (entry.reply_to === 0) moved(db, 'board', 0, now);
  moved(db, 'thread', entry.root, now);
  moved(db, 'user', entry.uid, now);
  moved(db, 'entries', 0, now);
}

export function everyFeedChanged(db: Db, now: number): void {
  moved(db, 'every', 0, now);
}

export function noticesChanged(db: Db, uid: number, now: number): void {
  moved(db, 'notices', uid, now);
}

function changedAt(db: Db, kind: Kind, id: number): number {
  return (
    db.one<{ at: number | null }>(
      "SELECT max(changed_at) AS at FROM feed_changes WHERE (kind = ? AND id = ?) OR (kind = 'every' AND id = 0)",
      kind,
      id,
    )!.at ?? 0
  );
}

export const boardFeedChangedAt = (db: Db) => changedAt(db, 'board', 0);
export const threadFeedChangedAt = (db: Db, root: number) => changedAt(db, 'thread', root);
export const userFeedChangedAt = (db: Db, uid: number) => changedAt(db, 'user', uid);
/** A private feed's: its notifications come from any thread, so any entry's leaving counts. */
export const privateFeedChangedAt = (db: Db, uid: number) =>
  Math.max(changedAt(db, 'entries', 0), changedAt(db, 'notices', uid));
