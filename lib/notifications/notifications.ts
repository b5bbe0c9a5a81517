import type { Db } from '../db/db.ts';
import { mentionedUids } from './mentions.ts';
import { isMuted } from '../accounts/mutes.ts';
import { maxNotifiedPerEntry, notificationPageSize } from '../product.ts';

/**
 * Notifications of replies and mentions (docs/API.md "Notifications of replies and mentions"),
 * without e-mail: rows written in the transaction of the create or edit that causes them, read
 * on the notifications page, the header's badge and the private Atom feed.
 */

export type NotificationKind = 'reply' | 'mention' | 'thread_reply';

/** Each account keeps its newest notifications: bounded rows, and a badge count that stays cheap. */
export const maxKeptPerAccount = 1000;
/**
 * The older ones go in groups, this many in one statement once the account holds maxKeptPerAccount
 * + trimGroup. Why: a dropped notification's rows lie on pages no other write touches, so dropping
 * one at every notification cost more than the create itself.
 */
export const trimGroup = 100;

interface Caused {
  pid: number;
  uid: number;
  content: string;
}

/**
 * Tells the parent's author about a reply (`parentUid`, 0 for none) and every mentioned account
 * about a mention, at most maxNotifiedPerEntry accounts per entry over its life: never its author,
 * never twice for one entry and account, never one that muted the author. Call inside the write's
 * transaction.
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

export interface NotificationRow {
  id: number;
  created_at: number;
  kind: NotificationKind;
  read: 0 | 1;
  pid: number;
}

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

export function countUnread(db: Db, uid: number): number {
  return db.value(`SELECT count(*) ${visible} AND n.read = 0`, uid);
}

export function markRead(db: Db, uid: number, upTo = Number.MAX_SAFE_INTEGER): number {
  db.run('UPDATE notifications SET read = 1 WHERE uid = ? AND read = 0 AND id <= ?', uid, upTo);
  return countUnread(db, uid);
}

/**
 * Account deletion: the account's notifications go, and every one its entries caused, found through
 * its entries (their rows stay until the background removal). Why not an index on actor_uid: it
 * cost every create a page write.
 */
export function deleteNotificationsOf(db: Db, uid: number): void {
  db.run('DELETE FROM notifications WHERE uid = ?', uid);
  db.run('DELETE FROM notifications WHERE pid IN (SELECT pid FROM entries WHERE uid = ?)', uid);
}
