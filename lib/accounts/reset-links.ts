import type { Db } from '../db/db.ts';
import { isTokenShaped, newToken, tokenHash } from './tokens.ts';
import { resetLinkLifetimeSeconds } from '../product.ts';

/** Creates a one-time reset token for a user; older links of that user stop working (superseded). */
export function createResetLink(db: Db, uid: number, now: number): string {
  const token = newToken();
  db.tx(() => {
    db.run('DELETE FROM reset_links WHERE uid = ?', uid);
    db.run(
      'INSERT INTO reset_links (token_hash, uid, created_at, expires) VALUES (?, ?, ?, ?)',
      tokenHash(token),
      uid,
      now,
      now + resetLinkLifetimeSeconds,
    );
  });
  return token;
}

export function findResetLink(db: Db, token: string, now: number): { uid: number } | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<{ uid: number }>(
    'SELECT uid FROM reset_links WHERE token_hash = ? AND expires > ?',
    tokenHash(token),
    now,
  );
}

/** Uses up a token: a used link is gone, so it answers like any unknown one. */
export function consumeResetLink(db: Db, token: string): boolean {
  return isTokenShaped(token) && db.run('DELETE FROM reset_links WHERE token_hash = ?', tokenHash(token)).changes === 1;
}

export function deleteResetLinksOfUser(db: Db, uid: number): void {
  db.run('DELETE FROM reset_links WHERE uid = ?', uid);
}

export function deleteExpiredResetLinks(db: Db, now: number): number {
  return db.run('DELETE FROM reset_links WHERE expires <= ?', now).changes;
}
