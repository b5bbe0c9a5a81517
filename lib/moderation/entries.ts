import { entryFeedsChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import { adjustEntryCounters, findEntry, findLiveEntry } from '../entries/entries.ts';
import type { EntryRow } from '../entries/reads.ts';
import { recordRestoredDescendant, repairLatestAfterRemoval } from '../entries/latest.ts';
import { writeModlog, type ActorUid } from '../modlog/modlog.ts';
import { closeOpenReports, countOpenReports } from './reports.ts';
import { indexEntry, unindexEntry } from '../search/index.ts';
import { findUserById } from '../accounts/users.ts';

/**
 * The moderation's actions on entries (docs/API.md "Moderation"). Each runs in one transaction
 * with its log row, so a failing log write leaves the entry as it was, and tells the response
 * cache in the same call.
 */

/**
 * Takes a live entry down: `deleted` 1 as an author's deletion (every live-entry check treats it as
 * gone), text, image and link kept for bringBackEntry. The one way an entry is hidden without being
 * deleted: a moderator's removal and an instance block both come here.
 */
export function takeDownEntry(db: Db, entry: EntryRow, reason: string, now: number): void {
  db.run(
    'UPDATE entries SET deleted = 1, removed = 1, removed_reason = ?, removed_at = ? WHERE pid = ?',
    reason,
    now,
    entry.pid,
  );
  adjustEntryCounters(db, entry.reply_to !== 0, -1);
  unindexEntry(db, entry.pid);
  repairLatestAfterRemoval(db, entry.pid, entry.reply_to);
  entryFeedsChanged(db, entry, now);
  db.changes.threadChanged(entry.root);
  db.changes.userChanged(entry.uid); // it leaves the author's feed: their pages shift
  db.events.entryDeleted(entry.pid, true);
}

/** Undoes takeDownEntry: live again, counted again, `latest` of its ancestors again where it is the newest. */
export function bringBackEntry(db: Db, entry: EntryRow, now: number): void {
  db.run("UPDATE entries SET deleted = 0, removed = 0, removed_reason = '', removed_at = 0 WHERE pid = ?", entry.pid);
  adjustEntryCounters(db, entry.reply_to !== 0, 1);
  indexEntry(db, entry);
  recordRestoredDescendant(db, entry.reply_to, entry);
  entryFeedsChanged(db, entry, now);
  db.changes.threadChanged(entry.root);
  db.changes.userChanged(entry.uid);
}

/** Removes a live entry (takeDownEntry) in the log, and closes its open reports. False when not live. */
export function removeEntry(db: Db, pid: number, reason: string, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const entry = findLiveEntry(db, pid);
    if (!entry) return false;
    takeDownEntry(db, entry, reason, now);
    const logId = writeModlog(db, actor, { action: 'remove', pid, uid: entry.uid, reason }, now);
    closeOpenReports(db, pid, 'remove', logId, now);
    return true;
  });
}

export type RestoreOutcome = 'restored' | 'not_found' | 'not_removed';

/**
 * Gives a removed entry back to its author unchanged (bringBackEntry). An entry whose author
 * deleted the account (its row gone, or an anonymous tombstone with the text erased) is not
 * found: nothing is left to restore.
 */
export function restoreEntry(db: Db, pid: number, actor: ActorUid, now: number): RestoreOutcome {
  return db.tx(() => {
    const entry = findEntry(db, pid);
    // uid 0: an account deletion's tombstone; no user row: an account deletion under way.
    if (!entry || entry.uid === 0 || !findUserById(db, entry.uid)) return 'not_found';
    if (!entry.removed) return 'not_removed';
    bringBackEntry(db, entry, now);
    writeModlog(db, actor, { action: 'restore', pid, uid: entry.uid }, now);
    return 'restored';
  });
}

export function dismissReports(db: Db, pid: number, reason: string, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    if (countOpenReports(db, pid) === 0) return false;
    const author = findEntry(db, pid)?.uid ?? 0;
    const logId = writeModlog(db, actor, { action: 'dismiss', pid, uid: author, reason }, now);
    closeOpenReports(db, pid, 'dismiss', logId, now);
    return true;
  });
}

export function removeAllEntriesOf(db: Db, uid: number, reason: string, actor: ActorUid, now: number): number {
  return db.tx(() => {
    const live = db.all<{ pid: number }>('SELECT pid FROM entries WHERE uid = ? AND deleted = 0 ORDER BY pid', uid);
    for (const { pid } of live) removeEntry(db, pid, reason, actor, now);
    return live.length;
  });
}
