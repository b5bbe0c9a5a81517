import { entryFeedsChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import type { EntryRow } from './reads.ts';
import { recordNewDescendant, refreshActivityToRoot, repairLatestAfterRemoval } from './latest.ts';
import { followOwnThread } from '../follows/follows.ts';
import { notifyAbout } from '../notifications/notifications.ts';
import { queueThreadReplies } from '../notifications/thread-replies.ts';
import { indexEntry, reindexEntry, unindexEntry } from '../search/index.ts';
import { bumpCooldownStepSeconds } from '../product.ts';

/** Every column of an entries row, including the denormalised ones (tests and tools compare them). */
export interface StoredEntry extends EntryRow {
  removed_at: number;
  edited_at: number;
  latest_pid: number;
  latest_skipped: number;
  votes_yes: number;
  votes_no: number;
}

export function findEntry(db: Db, pid: number): EntryRow | undefined {
  return db.one<EntryRow>(
    `SELECT pid, uid, created_at, content, filepath, reply_to, root, depth, reply_count, last_activity,
            deleted, bump_count, last_bump, link, removed, removed_reason, alt
     FROM entries WHERE pid = ?`,
    pid,
  );
}

export function entryExists(db: Db, pid: number): boolean {
  return db.one('SELECT 1 FROM entries WHERE pid = ?', pid) !== undefined;
}

/** True while a live entry shows this image (a deleted or removed one does not): /static/media/e/… answers only then. */
export function isLiveEntryImage(db: Db, filepath: string): boolean {
  return db.one("SELECT 1 FROM entries WHERE filepath = ? AND filepath <> '' AND deleted = 0", filepath) !== undefined;
}

export function findLiveEntry(db: Db, pid: number): EntryRow | undefined {
  const entry = findEntry(db, pid);
  return entry && !entry.deleted ? entry : undefined;
}

export function adjustEntryCounters(db: Db, isReply: boolean, delta: number): void {
  db.run(`UPDATE counters SET value = value + ? WHERE name IN ('entries', ?)`, delta, isReply ? 'replies' : 'toplevel');
}

export interface NewEntry {
  uid: number;
  content: string;
  filepath: string;
  replyTo: number;
  parent?: ParentEntry;
  link: string;
  alt?: string;
}

export type ParentEntry = Pick<EntryRow, 'pid' | 'uid' | 'root' | 'depth'>;

/**
 * Counts a reply at its parent while the parent is live; false when it is not. Why in the insert's
 * transaction: a delete may have committed since the caller read the parent, and then the reply is
 * not written.
 */
function countReplyAt(db: Db, parentPid: number): boolean {
  return (
    db.run('UPDATE entries SET reply_count = reply_count + 1 WHERE pid = ? AND deleted = 0', parentPid).changes === 1
  );
}

/**
 * Inserts an entry in one transaction: for a reply the parent's reply_count and every ancestor's
 * last_activity and `latest` move; it is indexed, tells whoever it replies to or mentions, and
 * queues its ancestors' followers. Undefined when the parent is gone; wake the fan-out job after
 * the commit.
 */
export function createEntry(db: Db, entry: NewEntry, now: number): number | undefined {
  return db.tx(() => {
    const parent = entry.replyTo ? (entry.parent ?? findLiveEntry(db, entry.replyTo)) : undefined;
    if (entry.replyTo && !(parent && countReplyAt(db, parent.pid))) return undefined;
    const { lastInsertRowid: pid } = db.run(
      `INSERT INTO entries (uid, created_at, content, filepath, reply_to, root, depth, last_activity, link, alt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      entry.uid,
      now,
      entry.content,
      entry.filepath,
      entry.replyTo,
      parent?.root ?? 0,
      parent ? parent.depth + 1 : 0,
      now,
      entry.link,
      entry.alt ?? '',
    );
    if (parent) {
      recordNewDescendant(db, parent.pid, pid, now);
    } else {
      db.run('UPDATE entries SET root = pid WHERE pid = ?', pid);
    }
    adjustEntryCounters(db, Boolean(parent), 1);
    indexEntry(db, { pid, uid: entry.uid, content: entry.content, alt: entry.alt ?? '' });
    notifyAbout(db, { pid, uid: entry.uid, content: entry.content }, parent?.uid ?? 0, now);
    if (parent) queueThreadReplies(db, { pid, uid: entry.uid }, parent.pid, now);
    else followOwnThread(db, entry.uid, pid, now);
    db.changes.threadChanged(parent?.root ?? pid);
    db.changes.userChanged(entry.uid);
    db.events.entryCreated(pid);
    return pid;
  });
}

/**
 * Replaces the text (and its first link) of an entry, and its image's description unless `alt` is
 * undefined, and marks it edited. Why the mark: an edit after others replied can change what they
 * answered to, so readers see that it happened.
 */
export function editEntry(db: Db, pid: number, content: string, link: string, now: number, alt?: string): void {
  db.tx(() => {
    const entry = findLiveEntry(db, pid);
    if (!entry) return;
    const description = alt ?? entry.alt;
    db.run(
      'UPDATE entries SET content = ?, link = ?, alt = ?, edited_at = ? WHERE pid = ?',
      content,
      link,
      description,
      now,
      pid,
    );
    reindexEntry(db, { pid, uid: entry.uid, content, alt: description });
    notifyAbout(db, { pid, uid: entry.uid, content }, 0, now);
    db.changes.threadChanged(entry.root);
    db.events.entryEdited(pid);
  });
}

/**
 * Soft delete: the entry keeps its place in the tree, author and counts; its text, image and
 * link are blanked. Ancestors whose `latest` it was get the next newest. Returns the image path.
 */
export function softDeleteEntry(db: Db, pid: number, now: number): string {
  return db.tx(() => {
    const entry = findLiveEntry(db, pid);
    if (!entry) return '';
    db.run("UPDATE entries SET deleted = 1, content = '', filepath = '', link = '', alt = '' WHERE pid = ?", pid);
    adjustEntryCounters(db, entry.reply_to !== 0, -1);
    unindexEntry(db, pid);
    repairLatestAfterRemoval(db, pid, entry.reply_to);
    entryFeedsChanged(db, entry, now);
    db.changes.threadChanged(entry.root);
    db.changes.userChanged(entry.uid);
    db.events.entryDeleted(pid, false);
    return entry.filepath;
  });
}

/**
 * When the entry may be bumped again (0: at once): docs/API.md "POST /api/entry/{pid}/bump", the
 * step in lib/product.ts. The front end computes the same (web/static/rules.js).
 */
export function bumpCooldownUntil(entry: Pick<EntryRow, 'bump_count' | 'last_bump'>): number {
  return entry.bump_count === 0 ? 0 : entry.last_bump + entry.bump_count * bumpCooldownStepSeconds;
}

/**
 * Reposts an entry: bump_count + 1, last_bump and last_activity (also of every ancestor) to now.
 * The cooldown is checked in the same statement, so two concurrent bumps cannot both pass.
 */
export function bumpEntry(db: Db, pid: number, uid: number, now: number): boolean {
  return db.tx(() => {
    const bumped = db.one<{ root: number }>(
      `UPDATE entries SET bump_count = bump_count + 1, last_bump = ?, last_activity = ?
       WHERE pid = ? AND deleted = 0 AND (bump_count = 0 OR last_bump + bump_count * ? <= ?)
       RETURNING root`,
      now,
      now,
      pid,
      bumpCooldownStepSeconds,
      now,
    );
    if (!bumped) return false;
    refreshActivityToRoot(db, pid, now);
    db.changes.threadChanged(bumped.root);
    db.events.entryBumped(pid, uid, now);
    return true;
  });
}

/**
 * Account deletion, entry side, one entry at a time (deepest first, lib/account-data/removal.ts):
 * an entry with replies becomes an anonymous tombstone (uid 0) so others' threads keep their shape;
 * one without replies goes with its votes and reports. Returns the image path to delete afterwards.
 */
export function removeEntryOfDeletedAccount(db: Db, pid: number, now: number): string {
  const entry = findEntry(db, pid);
  if (!entry) return '';
  if (!entry.deleted) {
    adjustEntryCounters(db, entry.reply_to !== 0, -1);
    unindexEntry(db, pid);
  }
  if (entry.reply_count > 0) {
    db.run(
      "UPDATE entries SET uid = 0, deleted = 1, content = '', filepath = '', link = '', alt = '' WHERE pid = ?",
      pid,
    );
  } else {
    removeEntryRow(db, entry);
  }
  repairLatestAfterRemoval(db, pid, entry.reply_to);
  if (!entry.deleted) entryFeedsChanged(db, entry, now);
  db.changes.threadChanged(entry.root);
  return entry.filepath;
}

function removeEntryRow(db: Db, entry: EntryRow): void {
  const tally = db.one<{ yes: number; no: number }>(
    'SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes WHERE pid = ?',
    entry.pid,
  )!;
  db.run("UPDATE counters SET value = value - ? WHERE name = 'votes_yes'", tally.yes);
  db.run("UPDATE counters SET value = value - ? WHERE name = 'votes_no'", tally.no);
  db.run('DELETE FROM votes WHERE pid = ?', entry.pid);
  db.run('DELETE FROM reports WHERE pid = ?', entry.pid);
  db.run('DELETE FROM entries WHERE pid = ?', entry.pid);
  if (entry.reply_to) db.run('UPDATE entries SET reply_count = reply_count - 1 WHERE pid = ?', entry.reply_to);
}
