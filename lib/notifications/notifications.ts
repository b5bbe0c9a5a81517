import type { Db } from '../db/db.ts';
import { mentionedUids } from './mentions.ts';
import { isMuted } from '../accounts/mutes.ts';
import { maxNotifiedPerEntry, notificationPageSize } from '../product.ts';

/**
 * Notifications of replies and mentions (docs/API.md "Notifications of replies and mentions"),
 * without e-mail: rows written in the transaction of the create or edit that causes them, read
 * on the notifications page, the header's badge and the private Atom feed.
 */

/** thread_reply: lib/notifications/thread-replies.ts. */
export type NotificationKind = 'reply' | 'mention' | 'thread_reply';

/** Each account keeps its newest 1000 (older ones go): bounded rows, and a badge count that stays cheap. */
export const maxKeptPerAccount = 1000;
/**
 * The older ones go in groups: an account holds up to 1099, and its 1100th takes the oldest 100
 * with it in one statement. Why: a dropped notification's row and index entries lie on pages no
 * other write touches (its table row, its entry's index entry, the account's oldest index
 * entries), so dropping one at every notification of an account at the limit wrote more pages
 * than the create itself; in groups, the account's index pages are written once per 100
 * (docs/SCALING.md "Reads and writes per core").
 */
export const trimGroup = 100;

interface Caused {
  pid: number;
  /** The entry's author. */
  uid: number;
  content: string;
}

/**
 * Tells the parent's author about a reply (`parentUid`, 0 for none) and every mentioned account
 * about a mention, at most 5 accounts per entry over its life, never its own author, never twice
 * for one entry and account (an edit that adds a mention tells only the new one), never an
 * account that muted the author. Call inside the create's or edit's transaction.
 */
export function notifyAbout(db: Db, entry: Caused, parentUid: number, now: number): void {
  const wanted: [number, NotificationKind][] = [];
  if (parentUid) wanted.push([parentUid, 'reply']);
  for (const uid of mentionedUids(db, entry.content)) wanted.push([uid, 'mention']);
  // Followers' notifications (thread = their followed entry) do not use up the room of replies and mentions.
  let room =
    maxNotifiedPerEntry - db.value('SELECT count(*) FROM notifications WHERE pid = ? AND thread = 0', entry.pid);
  for (const [uid, kind] of wanted) {
    if (room <= 0) return;
    if (uid === entry.uid || isMuted(db, uid, entry.uid)) continue;
    // The account may be gone (its entries wait for the background removal); a repeat changes nothing.
    const added = db.run(
      `INSERT INTO notifications (uid, pid, actor_uid, kind, created_at) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE uid = ?)
       ON CONFLICT (uid, pid) DO NOTHING`,
      uid,
      entry.pid,
      entry.uid,
      kind,
      now,
      uid,
    ).changes;
    if (added) keepNewest(db, uid);
    room -= added;
  }
}

/**
 * Drops the account's oldest notifications down to maxKeptPerAccount once it holds
 * maxKeptPerAccount + trimGroup. The count comes from notification_counts (kept by triggers,
 * lib/db/schema.ts migration 11), because finding the 1000th newest row walked 1000 index entries
 * at every notification of an account at the limit.
 */
export function keepNewest(db: Db, uid: number): void {
  const kept = db.one<{ kept: number }>('SELECT kept FROM notification_counts WHERE uid = ?', uid)?.kept ?? 0;
  if (kept < maxKeptPerAccount + trimGroup) return;
  db.run(
    'DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE uid = ? ORDER BY id LIMIT ?)',
    uid,
    kept - maxKeptPerAccount,
  );
}

/**
 * The notifications an account sees: of live entries only (a deleted or removed one's come back
 * with a restore), and none from an account it muted, even from before the mute.
 */
const visible = `
  FROM notifications n JOIN entries e ON e.pid = n.pid AND e.deleted = 0
  WHERE n.uid = ? AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = n.uid AND m.muted_uid = n.actor_uid)`;

/** A notification as the account's list shows it, with the pid of its entry. */
export interface NotificationRow {
  id: number;
  created_at: number;
  kind: NotificationKind;
  read: 0 | 1;
  pid: number;
}

/** One page of an account's notifications, newest first. */
export function readNotifications(
  db: Db,
  uid: number,
  page: number,
  pageSize = notificationPageSize,
): NotificationRow[] {
  return db.all<NotificationRow>(
    `SELECT n.id, n.created_at, n.kind, n.read, n.pid ${visible} ORDER BY n.id DESC LIMIT ? OFFSET ?`,
    uid,
    pageSize,
    page * pageSize,
  );
}

/** How many of an account's visible notifications are unread. */
export function countUnread(db: Db, uid: number): number {
  return db.value(`SELECT count(*) ${visible} AND n.read = 0`, uid);
}

/** Marks an account's notifications read, all of them or those up to an id; returns how many stay unread. */
export function markRead(db: Db, uid: number, upTo = Number.MAX_SAFE_INTEGER): number {
  db.run('UPDATE notifications SET read = 1 WHERE uid = ? AND read = 0 AND id <= ?', uid, upTo);
  return countUnread(db, uid);
}

/**
 * Account deletion: the account's notifications go, and every one its entries caused, found
 * through its entries (their rows stay until the background removal, which runs after this).
 * Why not an index on actor_uid: it cost every create a page write (lib/db/schema.ts migration 12).
 */
export function deleteNotificationsOf(db: Db, uid: number): void {
  db.run('DELETE FROM notifications WHERE uid = ?', uid);
  db.run('DELETE FROM notifications WHERE pid IN (SELECT pid FROM entries WHERE uid = ?)', uid);
}
