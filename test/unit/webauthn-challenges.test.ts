import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { createChallenge, deleteExpiredChallenges, takeChallenge } from '../../lib/accounts/webauthn-challenges.ts';
import {
  maxRegisterChallenges,
  maxSignInChallenges,
  passkeyChallengeSeconds as challengeLifetime,
} from '../../lib/product.ts';
import { openDb, type Db } from '../../lib/db/db.ts';
import { emptyFolder } from '../helpers.ts';

/** lib/accounts/webauthn-challenges.ts: passkey challenges are single use, expire, and never grow past their bounds. */

async function withDb(run: (db: Db) => void): Promise<void> {
  const db = openDb(join(emptyFolder('board-challenges-'), 'board.db'));
  try {
    run(db);
  } finally {
    await db.close();
  }
}

const count = (db: Db, uid: number) =>
  db.one<{ n: number }>('SELECT count(*) AS n FROM webauthn_challenges WHERE uid = ?', uid)!.n;

test('a challenge is taken once, only by its own account, and not after it expired', () =>
  withDb((db) => {
    const now = 1_800_000_000;
    const signIn = createChallenge(db, 0, now);
    assert.match(signIn, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(takeChallenge(db, signIn, 7, now), false, "a sign-in challenge is no account's registration");
    assert.equal(takeChallenge(db, signIn, 0, now), true);
    assert.equal(takeChallenge(db, signIn, 0, now), false, 'single use');

    const registration = createChallenge(db, 7, now);
    assert.equal(takeChallenge(db, registration, 8, now), false);
    assert.equal(takeChallenge(db, registration, 0, now), false);
    assert.equal(takeChallenge(db, registration, 7, now + challengeLifetime), false, 'expired');
    assert.equal(deleteExpiredChallenges(db, now + challengeLifetime), 1);
    assert.equal(takeChallenge(db, "'; DROP TABLE users; --", 0, now), false);
  }));

test('sign-in challenges are bounded board-wide and registration challenges per account: the oldest go first', () =>
  withDb((db) => {
    const now = 1_800_000_000;
    const first = createChallenge(db, 0, now);
    db.tx(() => {
      for (let i = 1; i < maxSignInChallenges + 50; i++) createChallenge(db, 0, now + 1);
    });
    assert.equal(count(db, 0), maxSignInChallenges);
    assert.equal(takeChallenge(db, first, 0, now + 1), false, 'the oldest went first');

    const registrations = Array.from({ length: maxRegisterChallenges + 2 }, (_, i) => createChallenge(db, 9, now + i));
    assert.equal(count(db, 9), maxRegisterChallenges);
    assert.equal(takeChallenge(db, registrations[0]!, 9, now + 10), false);
    assert.equal(takeChallenge(db, registrations.at(-1)!, 9, now + 10), true);
    assert.equal(count(db, 0), maxSignInChallenges, "one account's registrations take nothing from sign-ins");
  }));
