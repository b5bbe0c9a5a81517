import type { Db } from '../db/db.ts';
import { isTokenShaped, newToken, tokenHash } from '../accounts/tokens.ts';
import { isPublicAccount } from '../accounts/users.ts';
import { noBanInForce } from '../accounts/bans.ts';
import { inviteLifetimeSeconds, inviteWeekSeconds, maxListedInvites, maxTreeAccounts } from '../product.ts';

/**
 * Invites (docs/API.md "Invites"): a member or the administrator makes a one-time
 * token; the link carries it in its fragment (`/register#<token>`), the database only its hash.
 * The board remembers who invited whom (users.invited_by), so moderators see an account's inviter
 * and invitees and a ban can take the invitees with it.
 */

export interface NewInvite {
  id: number;
  token: string;
  expires: number;
}

const isOpen = 'used_by = 0 AND revoked_at = 0 AND expires > ?';

export function countOpenInvites(db: Db, uid: number, now: number): number {
  return db.one<{ n: number }>(`SELECT count(*) AS n FROM invites WHERE uid = ? AND ${isOpen}`, uid, now)!.n;
}

/**
 * When `uid` may make its next invite under a bound of `limit` invites in 7 days: the Unix time the
 * oldest of its newest `limit` invites of the week leaves it, or 0 when one may be made now. Every
 * invite made counts, revoked ones too, so making and revoking cannot get round it.
 */
export function nextInviteAt(db: Db, uid: number, limit: number, now: number): number {
  const oldest = db.one<{ created_at: number }>(
    'SELECT created_at FROM invites WHERE uid = ? AND created_at > ? ORDER BY id DESC LIMIT 1 OFFSET ?',
    uid,
    now - inviteWeekSeconds,
    limit - 1,
  );
  return oldest ? oldest.created_at + inviteWeekSeconds : 0;
}

/**
 * Creates an invite of `uid` (0: the administrator, without limit). `refuse`, the caller's bounds,
 * runs first inside the transaction and throws to refuse, so two requests at once cannot both take
 * the last place.
 */
export function createInvite(db: Db, uid: number, lifetime: number, now: number, refuse?: () => void): NewInvite {
  return db.tx(() => {
    refuse?.();
    const token = newToken();
    const expires = now + lifetime;
    const id = db.run(
      'INSERT INTO invites (token_hash, uid, created_at, expires) VALUES (?, ?, ?, ?)',
      tokenHash(token),
      uid,
      now,
      expires,
    ).lastInsertRowid;
    return { id, token, expires };
  });
}

/**
 * SQL: the `invites` row admits an account at the time bound to both its `?`: open, and its inviter
 * the administrator or a public account with no ban in force. Why: an invite skips approval, so it
 * is worth only what its inviter's record is worth, even before a ban revokes it.
 */
const admitsNow = `${isOpen} AND (invites.uid = 0 OR
  EXISTS (SELECT 1 FROM users u WHERE u.uid = invites.uid AND ${isPublicAccount} AND ${noBanInForce}))`;

export function findOpenInvite(db: Db, token: string, now: number): { id: number; uid: number } | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<{ id: number; uid: number }>(
    `SELECT id, uid FROM invites WHERE token_hash = ? AND ${admitsNow}`,
    tokenHash(token),
    now,
    now,
  );
}

/**
 * Uses the invite up for the new account `usedBy`, inside the transaction that creates it, reading
 * the invite and its inviter again: false when it no longer admits (of two registrations with one
 * token one wins; an inviter banned or deleted meanwhile admits nobody).
 */
export function useInvite(db: Db, id: number, usedBy: number, now: number): boolean {
  return (
    db.run(`UPDATE invites SET used_by = ?, used_at = ? WHERE id = ? AND ${admitsNow}`, usedBy, now, id, now, now)
      .changes === 1
  );
}

/**
 * Revokes every open invite of `uid`; call it in the transaction of a ban or an account deletion.
 * Why: an invite skips approval on its inviter's word, and a banned or deleted account's word
 * admits nobody; a ban that ends later gives none back.
 */
export function revokeOpenInvitesOf(db: Db, uid: number, now: number): number {
  return db.run(`UPDATE invites SET revoked_at = ? WHERE uid = ? AND ${isOpen}`, now, uid, now).changes;
}

export type InviteStatus = 'open' | 'used' | 'expired' | 'revoked';

export interface ListedInvite {
  id: number;
  created_at: number;
  expires: number;
  status: InviteStatus;
  used_by: string;
  used_at: number;
}

export function listInvites(db: Db, uid: number, now: number): ListedInvite[] {
  return db.all<ListedInvite>(
    `SELECT i.id, i.created_at, i.expires, i.used_at, coalesce(u.username, '') AS used_by,
       CASE WHEN i.used_by <> 0 THEN 'used' WHEN i.revoked_at <> 0 THEN 'revoked'
            WHEN i.expires <= ? THEN 'expired' ELSE 'open' END AS status
     FROM invites i LEFT JOIN users u ON u.uid = i.used_by
     WHERE i.uid = ? ORDER BY i.id DESC LIMIT ?`,
    now,
    uid,
    maxListedInvites,
  );
}

export function revokeInvite(db: Db, uid: number, id: number, now: number): 'revoked' | 'not_found' | 'not_open' {
  return db.tx(() => {
    if (!db.one('SELECT 1 FROM invites WHERE id = ? AND uid = ?', id, uid)) return 'not_found';
    const changed = db.run(
      `UPDATE invites SET revoked_at = ? WHERE id = ? AND uid = ? AND ${isOpen}`,
      now,
      id,
      uid,
      now,
    ).changes;
    return changed === 1 ? 'revoked' : 'not_open';
  });
}

/**
 * Housekeeping: invites that can no longer be used and made nobody go a week after they expired,
 * and never while they still count for their inviter's week (nextInviteAt).
 */
export function deleteStaleInvites(db: Db, now: number): number {
  return db.run(
    'DELETE FROM invites WHERE used_by = 0 AND expires <= ? AND created_at <= ?',
    now - inviteLifetimeSeconds,
    now - inviteWeekSeconds,
  ).changes;
}

export interface InviteTree {
  invited_by: string;
  invitees: { username: string; created_at: number }[];
}

export function inviteTreeOf(db: Db, uid: number): InviteTree {
  const inviter = db.one<{ username: string }>(
    'SELECT i.username FROM users u JOIN users i ON i.uid = u.invited_by WHERE u.uid = ?',
    uid,
  );
  const invitees = db.all<{ username: string; created_at: number }>(
    'SELECT username, created_at FROM users WHERE invited_by = ? ORDER BY uid DESC LIMIT 100',
    uid,
  );
  return { invited_by: inviter?.username ?? '', invitees };
}

export function invitedTree(db: Db, uid: number): number[] {
  const found: number[] = [];
  const seen = new Set([uid]);
  let level = [uid];
  while (level.length && found.length < maxTreeAccounts) {
    const next: number[] = [];
    for (const parent of level) {
      for (const { uid: child } of db.all<{ uid: number }>('SELECT uid FROM users WHERE invited_by = ?', parent)) {
        if (seen.has(child) || found.length >= maxTreeAccounts) continue;
        seen.add(child);
        found.push(child);
        next.push(child);
      }
    }
    level = next;
  }
  return found;
}
