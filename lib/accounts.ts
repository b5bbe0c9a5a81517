import type { Db } from './db.ts';
import { deleteUserRow } from './users.ts';

/**
 * The request's part of an account deletion, in one short transaction: the user row goes (its
 * sessions and reset links with it, by cascade), so nobody can log in as the account any more,
 * and the rest (entries, votes, reports, media) is queued for lib/account-removal.ts, which works
 * it off in slices. Why not all at once: a large account took over a second in one transaction,
 * and every other request waited. Returns the avatar file to remove afterwards.
 */
export function deleteAccount(db: Db, uid: number, now: number): string[] {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    deleteUserRow(db, uid);
    db.run('INSERT OR IGNORE INTO pending_deletions (uid, queued_at) VALUES (?, ?)', uid, now);
    db.responses.everythingChanged(); // the author's name and avatar leave every entry at once
    return [avatar].filter(Boolean);
  });
}
