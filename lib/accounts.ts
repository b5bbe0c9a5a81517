import type { Db } from './db.ts';
import { removeEntriesOfUser } from './entries.ts';
import { deleteMutesOf } from './mutes.ts';
import { anonymiseReportsOf } from './reports.ts';
import { deleteResetLinksOfUser } from './reset-links.ts';
import { deleteOtherSessions } from './sessions.ts';
import { deleteUserRow } from './users.ts';
import { removeVotesOfUser } from './votes.ts';

/**
 * Deletes an account and everything it owns in one transaction: votes leave the tallies,
 * entries go (tombstones where others replied), reports become anonymous, mutes go both ways,
 * then the user row with its sessions. Returns the media files to remove afterwards, best-effort.
 */
export function deleteAccount(db: Db, uid: number): string[] {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    removeVotesOfUser(db, uid);
    const files = removeEntriesOfUser(db, uid);
    anonymiseReportsOf(db, uid);
    deleteMutesOf(db, uid);
    deleteUserRow(db, uid);
    db.responses.everythingChanged();
    return [avatar, ...files].filter(Boolean);
  });
}

/**
 * What a new password ends, in one place for the reset and the password change: every live
 * session but `keepSessionId` (the one that changed it), and every outstanding reset link.
 * Why: whoever else held the old password, a session or a link must lose the account with it.
 * Call inside the transaction that stores the new hash; returns the sessions ended.
 */
export function afterPasswordChange(db: Db, uid: number, now: number, keepSessionId?: string): number {
  deleteResetLinksOfUser(db, uid);
  return deleteOtherSessions(db, uid, keepSessionId, now);
}
