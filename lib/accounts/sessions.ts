import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { activeBanUntil, noBanInForce } from './bans.ts';
import { usePasskey, type PasskeyUse } from './passkeys.ts';
import { isTokenShaped, newToken, tokenHash } from './tokens.ts';
import { recordLogin } from './users.ts';
import { maxListedSessions, maxSessionDescriptionLength } from '../product.ts';

export interface Session {
  /** The session's opaque public id: random, unrelated to the token, so listing it reveals nothing. */
  id: string;
  uid: number;
  created_at: number;
  expires: number;
  description: string;
}

/** A live session as a request sees it: not expired, its account under no ban in force. */
export type LiveSession = Session;

export interface NewSession {
  uid: number;
  /**
   * The stored password hash the password was checked against (a login), the one the same
   * transaction has just set (a reset, a recovery code), or the one the account had when a
   * passkey sign-in looked it up: a password change or reset meanwhile ends that sign-in too.
   */
  passHash: string;
  passkey?: PasskeyUse;
  lifetime: number;
  description: string;
}

export type SessionRefusal =
  | { refused: 'account_gone' }
  | { refused: 'banned'; until: number }
  | { refused: 'password_changed' }
  | { refused: 'pending' }
  | { refused: 'rejected'; reason: string }
  | { refused: 'passkey_gone' };

/**
 * The only way to make a session: in one transaction it reads the account again and refuses when it
 * is gone, banned or an application, or no longer has the password hash (or passkey) the caller
 * checked. Why: the password is checked outside any transaction, and a ban or reset meanwhile must
 * stand.
 */
export function createSession(db: Db, session: NewSession, now: number): { token: string } | SessionRefusal {
  return db.tx(() => {
    const account = db.one<{ pass_hash: string; banned_until: number; status: string; reject_reason: string }>(
      'SELECT pass_hash, banned_until, status, reject_reason FROM users WHERE uid = ?',
      session.uid,
    );
    if (!account) return { refused: 'account_gone' };
    if (account.status === 'pending') return { refused: 'pending' };
    if (account.status === 'rejected') return { refused: 'rejected', reason: account.reject_reason };
    const until = activeBanUntil(account, now);
    if (until) return { refused: 'banned', until };
    if (account.pass_hash !== session.passHash) return { refused: 'password_changed' };
    if (session.passkey && !usePasskey(db, session.uid, session.passkey, now)) return { refused: 'passkey_gone' };
    recordLogin(db, session.uid, now);
    const token = newToken();
    db.run(
      'INSERT INTO sessions (token_hash, public_id, uid, created_at, expires, description) VALUES (?, ?, ?, ?, ?, ?)',
      tokenHash(token),
      randomBytes(16).toString('hex'),
      session.uid,
      now,
      now + session.lifetime,
      [...session.description].slice(0, maxSessionDescriptionLength).join(''),
    );
    return { token };
  });
}

const live = `FROM sessions s JOIN users u ON u.uid = s.uid WHERE s.expires > ? AND ${noBanInForce}`;
const liveSessions = `SELECT s.public_id AS id, s.uid, s.created_at, s.expires, s.description ${live}`;

/**
 * The live session for a cookie value, or undefined (unknown, malformed or expired, or its account
 * is banned). Why the ban here too: a session of a banned account is no session wherever it is
 * looked up, whatever left its row behind.
 */
export function findSessionByToken(db: Db, token: string, now: number): LiveSession | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<LiveSession>(`${liveSessions} AND s.token_hash = ?`, now, now, tokenHash(token));
}

/**
 * The role of the account behind the session with this public id ('' or moderatorRole) while the
 * session is live, else undefined: the one indexed read with which every write of a request
 * re-checks its session inside its transaction (lib/http/session-bound-db.ts).
 */
export function liveSessionRole(db: Db, id: string, now: number): string | undefined {
  return db.one<{ role: string }>(`SELECT u.role ${live} AND s.public_id = ?`, now, now, id)?.role;
}

export function listSessionsOfUser(db: Db, uid: number, now: number, limit = maxListedSessions): Session[] {
  return db.all<Session>(
    `SELECT public_id AS id, uid, created_at, expires, description FROM sessions
     WHERE uid = ? AND expires > ? ORDER BY created_at DESC, public_id LIMIT ?`,
    uid,
    now,
    Number.isFinite(limit) ? limit : -1,
  );
}

export function deleteSessionByToken(db: Db, token: string): void {
  if (isTokenShaped(token)) db.run('DELETE FROM sessions WHERE token_hash = ?', tokenHash(token));
}

export function deleteSessionById(db: Db, uid: number, id: string, now: number): boolean {
  return db.run('DELETE FROM sessions WHERE public_id = ? AND uid = ? AND expires > ?', id, uid, now).changes === 1;
}

/**
 * Ends every live session of the account except the one with this public id (none kept when
 * undefined); returns how many ended. Expired ones are left to housekeeping, so the count
 * matches what the session list showed.
 */
export function deleteOtherSessions(db: Db, uid: number, keepId: string | undefined, now: number): number {
  return db.run('DELETE FROM sessions WHERE uid = ? AND public_id IS NOT ? AND expires > ?', uid, keepId ?? null, now)
    .changes;
}

export function deleteSessionsOfUser(db: Db, uid: number): void {
  db.run('DELETE FROM sessions WHERE uid = ?', uid);
}

export function deleteExpiredSessions(db: Db, now: number): number {
  return db.run('DELETE FROM sessions WHERE expires <= ?', now).changes;
}
