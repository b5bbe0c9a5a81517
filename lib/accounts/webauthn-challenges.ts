import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { maxRegisterChallenges, maxSignInChallenges, passkeyChallengeSeconds } from '../product.ts';

/**
 * The challenges of passkey ceremonies (docs/API.md "Passkeys"), kept in the database so that
 * every worker of a cluster knows them: single use (taking one deletes it), valid for a few
 * minutes, and bounded. A sign-in challenge belongs to nobody yet (uid 0); a registration's to
 * the account that asked for it.
 */

export function createChallenge(db: Db, uid: number, now: number): string {
  const challenge = randomBytes(32).toString('base64url');
  db.tx(() => {
    db.run('DELETE FROM webauthn_challenges WHERE expires <= ?', now);
    const bound = uid === 0 ? maxSignInChallenges : maxRegisterChallenges;
    db.run(
      `DELETE FROM webauthn_challenges WHERE challenge IN (
         SELECT challenge FROM webauthn_challenges WHERE uid = ? ORDER BY expires DESC LIMIT -1 OFFSET ?)`,
      uid,
      bound - 1,
    );
    db.run(
      'INSERT INTO webauthn_challenges (challenge, uid, expires) VALUES (?, ?, ?)',
      challenge,
      uid,
      now + passkeyChallengeSeconds,
    );
  });
  return challenge;
}

/**
 * Uses up a challenge of `uid` (0: a sign-in): true when it was outstanding and unexpired. Why
 * it is taken before the response is verified: whatever the outcome, a challenge answers once,
 * so a captured response cannot be replayed, not even after a failed try.
 */
export function takeChallenge(db: Db, challenge: string, uid: number, now: number): boolean {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(challenge)) return false;
  return (
    db.run('DELETE FROM webauthn_challenges WHERE challenge = ? AND uid = ? AND expires > ?', challenge, uid, now)
      .changes === 1
  );
}

export function deleteExpiredChallenges(db: Db, now: number): number {
  return db.run('DELETE FROM webauthn_challenges WHERE expires <= ?', now).changes;
}
