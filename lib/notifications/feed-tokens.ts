import type { Db } from '../db/db.ts';
import { noBanInForce } from '../accounts/bans.ts';
import { isTokenShaped, newToken, tokenHash } from '../accounts/tokens.ts';

/**
 * The secret of an account's private Atom feed of its notifications (/n/<token>.atom): one per
 * account, only its SHA-256 stored, like sessions and reset links. Why a token and not the
 * session: feed readers keep no cookies, and a token read out of a feed reader's settings gives
 * away the notifications only, never the account.
 */

export function createFeedToken(db: Db, uid: number, now: number): string {
  const token = newToken();
  db.run(
    `INSERT INTO feed_tokens (uid, token_hash, created_at) VALUES (?, ?, ?)
     ON CONFLICT (uid) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
    uid,
    tokenHash(token),
    now,
  );
  return token;
}

export function endFeedToken(db: Db, uid: number): void {
  db.run('DELETE FROM feed_tokens WHERE uid = ?', uid);
}

/**
 * The account a token belongs to, while no ban is in force on it. Why not end the token at a ban:
 * the feed holds the account's own notifications, which it gets back when the ban ends; meanwhile
 * it reads nothing a logged-out visitor could not.
 */
export function findFeedTokenOwner(db: Db, token: string, now: number): number | undefined {
  if (!isTokenShaped(token)) return undefined;
  return db.one<{ uid: number }>(
    `SELECT f.uid FROM feed_tokens f JOIN users u ON u.uid = f.uid WHERE f.token_hash = ? AND ${noBanInForce}`,
    tokenHash(token),
    now,
  )?.uid;
}
