import { noticesChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import { maxMutes } from '../product.ts';

/**
 * Mutes: a reader hides another account's entries for themselves. The muted account is never
 * told: no answer but the reader's own mute list shows a mute.
 */

export interface MutedAccount {
  uid: number;
  username: string;
}

/** True when `uid` has muted `mutedUid`: a muted account causes no notifications. */
export function isMuted(db: Db, uid: number, mutedUid: number): boolean {
  return db.one('SELECT 1 FROM mutes WHERE uid = ? AND muted_uid = ?', uid, mutedUid) !== undefined;
}

export function muteAccount(db: Db, uid: number, mutedUid: number, now: number): boolean {
  return db.tx(() => {
    if (isMuted(db, uid, mutedUid)) return true;
    if (db.value('SELECT count(*) FROM mutes WHERE uid = ?', uid) >= maxMutes) return false;
    db.run('INSERT INTO mutes (uid, muted_uid, created_at) VALUES (?, ?, ?)', uid, mutedUid, now);
    noticesChanged(db, uid, now); // the private feed hides the muted account's entries
    return true;
  });
}

export function unmuteAccount(db: Db, uid: number, mutedUid: number, now: number): void {
  db.tx(() => {
    if (db.run('DELETE FROM mutes WHERE uid = ? AND muted_uid = ?', uid, mutedUid).changes)
      noticesChanged(db, uid, now);
  });
}

export function listMutes(db: Db, uid: number): MutedAccount[] {
  return db.all<MutedAccount>(
    `SELECT u.uid, u.username FROM mutes m JOIN users u ON u.uid = m.muted_uid
     WHERE m.uid = ? ORDER BY m.created_at DESC, m.muted_uid DESC`,
    uid,
  );
}

export function deleteMutesOf(db: Db, uid: number): void {
  db.run('DELETE FROM mutes WHERE uid = ? OR muted_uid = ?', uid, uid);
}
