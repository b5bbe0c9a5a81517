import type { Db } from '../db/db.ts';
import type { EntryRow } from '../entries/reads.ts';
import { bringBackEntry, takeDownEntry } from '../moderation/entries.ts';

/**
 * What an instance block does to the entries its people wrote here (docs/API.md "Blocked
 * instances"): they are hidden, not deleted. Why hide: a block is often lifted once the other
 * server deals with its spam, and then the answers are back in their threads as they were. A
 * hidden entry is taken down as a removal takes it down (lib/moderation/entries.ts
 * takeDownEntry), so every surface that leaves out a removed entry leaves it out too;
 * remote_entries.hidden tells which ones the unblock brings back (never one a moderator removed).
 */

export const hiddenByBlockReason = 'Der Server dieses Beitrags ist gesperrt.';

const entryColumns = `e.pid, e.uid, e.created_at, e.content, e.filepath, e.reply_to, e.root, e.depth, e.reply_count,
  e.last_activity, e.deleted, e.bump_count, e.last_bump, e.link, e.removed, e.removed_reason, e.alt`;

/** Hides every live entry from `host`, deepest first (so each ancestor's `latest` is repaired once); in the block's transaction. */
export function hideEntriesOf(db: Db, host: string, now: number): number {
  const live = db.all<EntryRow>(
    `SELECT ${entryColumns} FROM remote_entries r JOIN entries e ON e.pid = r.pid
     WHERE r.host = ? AND e.deleted = 0 ORDER BY e.depth DESC, e.pid DESC`,
    host,
  );
  for (const entry of live) {
    takeDownEntry(db, entry, hiddenByBlockReason, now);
    db.run('UPDATE remote_entries SET hidden = 1 WHERE pid = ?', entry.pid);
  }
  return live.length;
}

/** Shows again what hideEntriesOf hid from `host` and nobody removed or restored since; in the unblock's transaction. */
export function showEntriesOf(db: Db, host: string, now: number): number {
  const hidden = db.all<EntryRow>(
    `SELECT ${entryColumns} FROM remote_entries r JOIN entries e ON e.pid = r.pid
     WHERE r.host = ? AND r.hidden = 1 AND e.removed = 1 ORDER BY e.depth, e.pid`,
    host,
  );
  for (const entry of hidden) bringBackEntry(db, entry, now);
  db.run('UPDATE remote_entries SET hidden = 0 WHERE host = ? AND hidden = 1', host);
  return hidden.length;
}
