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
 * The request's part of an account deletion, in one short transaction: the user row goes (sessions,
 * reset links and feed token by cascade), its mutes and notifications go both ways and its open
 * invites are revoked, so nobody can log in as it any more. The rest (entries, votes, reports,
 * media) is queued for lib/account-data/removal.ts, which works it off in slices so no request
 * waits behind a large account. Returns the avatar file to remove afterwards.
 */
export function deleteAccount(db: Db, uid: number, now: number): string[] {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    deleteMutesOf(db, uid);
    deleteNotificationsOf(db, uid);
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
 * What a new password ends, for the reset and the password change alike: every live session but
 * `keepSessionId`, every reset link and the private feed's token, so whoever else held the old
 * password, a session, a link or the feed loses the account. Call inside the transaction that
 * stores the new hash.
 */
export function afterPasswordChange(db: Db, uid: number, now: number, keepSessionId?: string): number {
  deleteResetLinksOfUser(db, uid);
  endFeedToken(db, uid);
  return deleteOtherSessions(db, uid, keepSessionId, now);
}
