import type { Db } from '../db/db.ts';
import { followingPageSize, maxFollows } from '../product.ts';

/**
 * Following (docs/API.md "Following threads"): a reader follows an entry's whole subtree and is
 * told of new replies anywhere below it, as a `thread_reply` notification
 * (lib/notifications/thread-replies.ts).
 */

export function isFollowing(db: Db, uid: number, pid: number): boolean {
  return db.one('SELECT 1 FROM follows WHERE uid = ? AND pid = ?', uid, pid) !== undefined;
}

/**
 * Follows an entry (again: no change); false when the account already holds maxFollows. Call inside
 * a transaction when the caller checked the entry.
 */
export function followEntry(db: Db, uid: number, pid: number, now: number): boolean {
  if (isFollowing(db, uid, pid)) return true;
  if (countFollows(db, uid) >= maxFollows) return false;
  db.run('INSERT INTO follows (uid, pid, created_at) VALUES (?, ?, ?)', uid, pid, now);
  return true;
}

function countFollows(db: Db, uid: number): number {
  return db.one<{ n: number }>('SELECT count(*) AS n FROM follows WHERE uid = ?', uid)!.n;
}

export function unfollowEntry(db: Db, uid: number, pid: number): void {
  db.run('DELETE FROM follows WHERE uid = ? AND pid = ?', uid, pid);
}

/**
 * A new thread: its author follows it when the account's setting says so (the default) and the
 * bound leaves room. Why by default: the author cares most about the answers below the first level,
 * which `reply` notifications do not cover.
 */
export function followOwnThread(db: Db, uid: number, pid: number, now: number): void {
  const wanted = db.one<{ on: number }>('SELECT follow_own_threads AS "on" FROM users WHERE uid = ?', uid)?.on;
  if (wanted) followEntry(db, uid, pid, now);
}

export function followState(db: Db, uid: number): { own_threads: 0 | 1; pids: number[] } {
  const own = db.one<{ on: 0 | 1 }>('SELECT follow_own_threads AS "on" FROM users WHERE uid = ?', uid)?.on ?? 1;
  const pids = db.all<{ pid: number }>('SELECT pid FROM follows WHERE uid = ? ORDER BY pid', uid).map((r) => r.pid);
  return { own_threads: own, pids };
}

export function setFollowOwnThreads(db: Db, uid: number, on: boolean): void {
  db.run('UPDATE users SET follow_own_threads = ? WHERE uid = ?', on ? 1 : 0, uid);
}

export function readFollowing(db: Db, uid: number, page: number): { pid: number; followed_at: number }[] {
  return db.all<{ pid: number; followed_at: number }>(
    `SELECT f.pid, f.created_at AS followed_at FROM follows f JOIN entries e ON e.pid = f.pid
     WHERE f.uid = ? ORDER BY f.created_at DESC, f.pid DESC LIMIT ? OFFSET ?`,
    uid,
    followingPageSize,
    page * followingPageSize,
  );
}

export function listFollowsForExport(db: Db, uid: number): { pid: number; created_at: number }[] {
  return db.all('SELECT pid, created_at FROM follows WHERE uid = ? ORDER BY created_at, pid', uid);
}
