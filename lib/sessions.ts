import type { Db } from './db.ts';
import { isTokenShaped, newToken, tokenHash } from './tokens.ts';

export interface Session {
  uid: number;
  created_at: number;
  expires: number;
  description: string;
}

/** Creates a session and returns the cookie value (only its hash is stored). */
export function createSession(db: Db, uid: number, now: number, lifetime: number, description: string): string {
  const token = newToken();
  db.run(
    'INSERT INTO sessions (token_hash, uid, created_at, expires, description) VALUES (?, ?, ?, ?, ?)',
    tokenHash(token), uid, now, now + lifetime, [...description].slice(0, 200).join(''),
  );
  return token;
}

/** The live session for a cookie value, or undefined (unknown, malformed or expired). */
export function findSessionByToken(db: Db, token: string, now: number): Session | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<Session>(
    'SELECT uid, created_at, expires, description FROM sessions WHERE token_hash = ? AND expires > ?',
    tokenHash(token), now,
  );
}

export function deleteSessionByToken(db: Db, token: string): void {
  if (isTokenShaped(token)) db.run('DELETE FROM sessions WHERE token_hash = ?', tokenHash(token));
}

export function deleteSessionsOfUser(db: Db, uid: number): void {
  db.run('DELETE FROM sessions WHERE uid = ?', uid);
}

/** Housekeeping: expired sessions are useless and only grow the table. */
export function deleteExpiredSessions(db: Db, now: number): number {
  return db.run('DELETE FROM sessions WHERE expires <= ?', now).changes;
}
