import { entryFeedsChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import { adjustEntryCounters, findEntry, findLiveEntry } from '../entries/entries.ts';
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
 * Removes a live entry: `deleted` 1 like an author's deletion (so every live-entry check, the
 * feed, `latest` and the counters treat it as gone), but text, image and link stay stored for a
 * restore. last_activity does not move. Closes the entry's open reports. False when not live.
 */
export function removeEntry(db: Db, pid: number, reason: string, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const entry = findLiveEntry(db, pid);
    if (!entry) return false;
    db.run(
      'UPDATE entries SET deleted = 1, removed = 1, removed_reason = ?, removed_at = ? WHERE pid = ?',
      reason,
      now,
      pid,
    );
    adjustEntryCounters(db, entry.reply_to !== 0, -1);
    unindexEntry(db, pid);
    repairLatestAfterRemoval(db, pid, entry.reply_to);
    const logId = writeModlog(db, actor, { action: 'remove', pid, uid: entry.uid, reason }, now);
    closeOpenReports(db, pid, 'remove', logId, now);
    entryFeedsChanged(db, entry, now);
    db.changes.threadChanged(entry.root);
    db.changes.userChanged(entry.uid); // it leaves the author's feed: their pages shift
    db.events.entryDeleted(pid, true);
    return true;
  });
}

export type RestoreOutcome = 'restored' | 'not_found' | 'not_removed';

/**
 * Gives a removed entry back to its author unchanged: live again, counted again, `latest` of its
 * ancestors again where it is the newest. An entry whose author deleted the account (its row
 * gone, or an anonymous tombstone with the text erased) is not found: nothing is left to restore.
 */
export function restoreEntry(db: Db, pid: number, actor: ActorUid, now: number): RestoreOutcome {
  return db.tx(() => {
    const entry = findEntry(db, pid);
    // uid 0: an account deletion's tombstone; no user row: an account deletion under way.
    if (!entry || entry.uid === 0 || !findUserById(db, entry.uid)) return 'not_found';
    if (!entry.removed) return 'not_removed';
    db.run("UPDATE entries SET deleted = 0, removed = 0, removed_reason = '', removed_at = 0 WHERE pid = ?", pid);
    adjustEntryCounters(db, entry.reply_to !== 0, 1);
    indexEntry(db, entry);
    recordRestoredDescendant(db, entry.reply_to, entry);
    writeModlog(db, actor, { action: 'restore', pid, uid: entry.uid }, now);
    entryFeedsChanged(db, entry, now);
    db.changes.threadChanged(entry.root);
    db.changes.userChanged(entry.uid);
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
