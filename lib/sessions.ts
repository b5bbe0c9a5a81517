import { randomBytes } from 'node:crypto';
import type { Db } from './db.ts';
import { isTokenShaped, newToken, tokenHash } from './tokens.ts';

export interface Session {
  /** The session's opaque public id: random, unrelated to the token, so listing it reveals nothing. */
  id: string;
  uid: number;
  created_at: number;
  expires: number;
  description: string;
}

/** The newest sessions a list shows; revoke-others ends the rest too. */
export const maxListedSessions = 100;

/** Creates a session and returns the cookie value (only its hash is stored). */
export function createSession(db: Db, uid: number, now: number, lifetime: number, description: string): string {
  const token = newToken();
  db.run(
    'INSERT INTO sessions (token_hash, public_id, uid, created_at, expires, description) VALUES (?, ?, ?, ?, ?, ?)',
    tokenHash(token), randomBytes(16).toString('hex'), uid, now, now + lifetime, [...description].slice(0, 200).join(''),
  );
  return token;
}

/** The live session for a cookie value, or undefined (unknown, malformed or expired). */
export function findSessionByToken(db: Db, token: string, now: number): Session | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<Session>(
    'SELECT public_id AS id, uid, created_at, expires, description FROM sessions WHERE token_hash = ? AND expires > ?',
    tokenHash(token), now,
  );
}

/** An account's live sessions, newest first, at most `limit` (the export takes them all). */
export function listSessionsOfUser(db: Db, uid: number, now: number, limit = maxListedSessions): Session[] {
  return db.all<Session>(
    `SELECT public_id AS id, uid, created_at, expires, description FROM sessions
     WHERE uid = ? AND expires > ? ORDER BY created_at DESC, public_id LIMIT ?`,
    uid, now, Number.isFinite(limit) ? limit : -1,
  );
}

export function deleteSessionByToken(db: Db, token: string): void {
  if (isTokenShaped(token)) db.run('DELETE FROM sessions WHERE token_hash = ?', tokenHash(token));
}

/** Ends one of the account's live sessions by its public id; false when the account has no such session. */
export function deleteSessionById(db: Db, uid: number, id: string, now: number): boolean {
  return db.run('DELETE FROM sessions WHERE public_id = ? AND uid = ? AND expires > ?', id, uid, now).changes === 1;
}

/**
 * Ends every live session of the account except the one with this public id (none kept when
 * undefined); returns how many ended. Expired ones are left to housekeeping, so the count
 * matches what the session list showed.
 */
export function deleteOtherSessions(db: Db, uid: number, keepId: string | undefined, now: number): number {
  return db.run('DELETE FROM sessions WHERE uid = ? AND public_id IS NOT ? AND expires > ?', uid, keepId ?? null, now).changes;
}

export function deleteSessionsOfUser(db: Db, uid: number): void {
  db.run('DELETE FROM sessions WHERE uid = ?', uid);
}

/** Housekeeping: expired sessions are useless and only grow the table. */
export function deleteExpiredSessions(db: Db, now: number): number {
  return db.run('DELETE FROM sessions WHERE expires <= ?', now).changes;
}
