import type { Db } from '../db/db.ts';
import { writeModlog, administrator, type ActorUid } from '../modlog/modlog.ts';
import { deleteSessionsOfUser } from '../accounts/sessions.ts';
import { moderatorRole } from '../accounts/users.ts';
import { permanentBan } from '../accounts/bans.ts';
import { removeAllEntriesOf } from './entries.ts';
import { invitedTree, revokeOpenInvitesOf } from '../registration/invites.ts';

/**
 * The moderation's actions on accounts (docs/API.md "Moderation"): bans, avatars and the
 * moderator role. Each runs in one transaction with its log row.
 */

const banEnd = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

export function bannedMessage(until: number): string {
  return until === permanentBan
    ? 'Dieses Konto ist dauerhaft gesperrt.'
    : `Dieses Konto ist gesperrt bis ${banEnd.format(new Date(until * 1000))} (UTC).`;
}

export interface Ban {
  reason: string;
  until: number;
  purge: boolean;
  tree?: boolean;
}

export function treeBanReason(reason: string, inviter: string): string {
  return `${reason} (Einladungsbaum von ${inviter})`.slice(0, 500);
}

export function banTree(db: Db, uid: number, ban: Ban, actor: ActorUid, now: number): number {
  return db.tx(() => {
    banUser(db, uid, ban, actor, now);
    const inviter = db.one<{ username: string }>('SELECT username FROM users WHERE uid = ?', uid)?.username ?? '';
    const targets = treeBanTargets(db, uid);
    for (const child of targets) banUser(db, child, { ...ban, reason: treeBanReason(ban.reason, inviter) }, actor, now);
    return targets.length;
  });
}

export function treeBanTargets(db: Db, uid: number): number[] {
  return invitedTree(db, uid).filter(
    (child) => db.one<{ role: string }>('SELECT role FROM users WHERE uid = ?', child)?.role !== moderatorRole,
  );
}

/**
 * Bans an account (a second ban replaces the end): every session ends at once, its open invites
 * are revoked, a moderator loses the role (the administrator may ban moderators), and a purge
 * removes the live entries. Returns how many entries the purge removed.
 */
export function banUser(db: Db, uid: number, ban: Ban, actor: ActorUid, now: number): number {
  return db.tx(() => {
    const wasModerator =
      db.run("UPDATE users SET role = '' WHERE uid = ? AND role = ?", uid, moderatorRole).changes === 1;
    // The account was deleted since the caller looked it up (board-admin is another process):
    // its entries belong to the account-removal job now, so nothing is banned, logged or purged.
    if (
      db.run('UPDATE users SET banned_until = ?, ban_reason = ? WHERE uid = ?', ban.until, ban.reason, uid).changes ===
      0
    )
      return 0;
    if (wasModerator) writeModlog(db, actor, { action: 'mod_remove', uid, reason: ban.reason }, now);
    // The drawn profile shows a ban in force (lib/pages/views/profile.ts) and may be cached from
    // before; a banned one is never kept, so the unban and the ban's end need no word to the cache.
    db.changes.everythingChanged();
    deleteSessionsOfUser(db, uid);
    revokeOpenInvitesOf(db, uid, now);
    writeModlog(db, actor, { action: 'ban', uid, reason: ban.reason, until: ban.until }, now);
    return ban.purge ? removeAllEntriesOf(db, uid, ban.reason, actor, now) : 0;
  });
}

export function unbanUser(db: Db, uid: number, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const lifted =
      db.run(
        "UPDATE users SET banned_until = 0, ban_reason = '' WHERE uid = ? AND (banned_until = ? OR banned_until > ?)",
        uid,
        permanentBan,
        now,
      ).changes === 1;
    if (lifted) writeModlog(db, actor, { action: 'unban', uid }, now);
    return lifted;
  });
}

/**
 * Takes an avatar down (the author's name and avatar show in every thread, so every cached page
 * changes). Returns the old file's path for the caller to delete, or '' when there was none.
 */
export function removeAvatarOf(db: Db, uid: number, reason: string, actor: ActorUid, now: number): string {
  return db.tx(() => {
    const avatar = db.one<{ avatar: string }>('SELECT avatar FROM users WHERE uid = ?', uid)?.avatar ?? '';
    if (!avatar) return '';
    db.run("UPDATE users SET avatar = '' WHERE uid = ?", uid);
    writeModlog(db, actor, { action: 'avatar_remove', uid, reason }, now);
    db.changes.everythingChanged();
    return avatar;
  });
}

export function setModerator(db: Db, uid: number, moderator: boolean, now: number): boolean {
  return db.tx(() => {
    const role = moderator ? moderatorRole : '';
    const changed = db.run('UPDATE users SET role = ? WHERE uid = ? AND role <> ?', role, uid, role).changes === 1;
    if (changed) writeModlog(db, administrator, { action: moderator ? 'mod_add' : 'mod_remove', uid }, now);
    return changed;
  });
}

export function listModerators(db: Db): { uid: number; username: string }[] {
  return db.all<{ uid: number; username: string }>(
    'SELECT uid, username FROM users WHERE role = ? ORDER BY username_key',
    moderatorRole,
  );
}
