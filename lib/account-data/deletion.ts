import { everyFeedChanged } from '../db/feed-changes.ts';
import type { Db } from '../db/db.ts';
import { endFeedToken } from '../notifications/feed-tokens.ts';
import { deleteMutesOf } from '../accounts/mutes.ts';
import { deleteNotificationsOf } from '../notifications/notifications.ts';
import { revokeOpenInvitesOf } from '../registration/invites.ts';
import { deleteResetLinksOfUser } from '../accounts/reset-links.ts';
import { deleteOtherSessions } from '../accounts/sessions.ts';
import { deleteUserRow } from '../accounts/users.ts';

/**
 * The request's part of an account deletion, in one short transaction: the user row goes (its
 * sessions, reset links and feed token with it, by cascade), its mutes and notifications go both
 * ways, its open invites are revoked (they admit on its word), so nobody can log in as
 * the account any more, and the rest (entries, votes, reports, media) is queued for
 * lib/account-data/removal.ts, which works it off in slices. Why not all at once: a large account took
 * over a second in one transaction, and every other request waited. Returns the avatar file to
 * remove afterwards.
 */
export function deleteAccount(db: Db, uid: number, now: number): string[] {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    deleteMutesOf(db, uid); // both ways; the foreign keys would cascade them with the user row too
    deleteNotificationsOf(db, uid); // both ways: its own, and those its entries caused
    revokeOpenInvitesOf(db, uid, now);
    deleteUserRow(db, uid);
    db.events.accountDeleted(uid);
    db.run('INSERT OR IGNORE INTO pending_deletions (uid, queued_at) VALUES (?, ?)', uid, now);
    everyFeedChanged(db, now);
    db.changes.everythingChanged(); // the author's name and avatar leave every entry at once
    return [avatar].filter(Boolean);
  });
}

/**
 * What a new password ends, in one place for the reset and the password change: every live
 * session but `keepSessionId` (the one that changed it), every outstanding reset link and the
 * private feed's token. Why: whoever else held the old password, a session, a link or the feed
 * must lose the account with it.
 * Call inside the transaction that stores the new hash; returns the sessions ended.
 */
export function afterPasswordChange(db: Db, uid: number, now: number, keepSessionId?: string): number {
  deleteResetLinksOfUser(db, uid);
  endFeedToken(db, uid);
  return deleteOtherSessions(db, uid, keepSessionId, now);
}
