import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { recoveryCodeCount } from '../product.ts';

/**
 * Recovery codes (docs/API.md "Recovery codes"): ten single-use codes that set a new password
 * without the operator. Shown once; only a hash of each is stored.
 */

/**
 * Crockford's base32 (no I, L, O, U: nothing to misread), 16 characters: 80 random bits a code,
 * written in four groups of four.
 */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const codeLength = 16;

/** A fresh code, as shown: `7KQ2-M9XD-4TZA-H1RB`. */
function newCode(): string {
  const chars = Array.from({ length: codeLength }, () => alphabet[randomInt(alphabet.length)]!);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

/**
 * A code as typed, in the form it was hashed: spaces and dashes dropped, upper case, the look-alikes
 * I, L → 1 and O → 0 read as Crockford says. Undefined when it cannot be a code at all.
 */
export function normaliseCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return code.length === codeLength && [...code].every((c) => alphabet.includes(c)) ? code : undefined;
}

/**
 * HMAC-SHA256 of the normalised code, keyed by the account. Why a fast hash suffices here (unlike
 * passwords, which get scrypt): a code is 80 random bits, so guessing one from its hash costs
 * 2^79 tries on average however fast each is; slow hashing only helps secrets a person chose.
 * Why keyed by the account: a stored hash matches only for its own account, so rows copied from
 * one account to another (or one code tried against every account's hashes) match nothing.
 */
function codeHash(uid: number, code: string): Buffer {
  return createHmac('sha256', `board recovery code/${uid}`).update(code).digest();
}

/** Replaces the account's codes with ten new ones, in one transaction; returns them as shown (once). */
export function replaceRecoveryCodes(db: Db, uid: number, now: number): string[] {
  const codes = Array.from({ length: recoveryCodeCount }, newCode);
  db.tx(() => {
    db.run('DELETE FROM recovery_codes WHERE uid = ?', uid);
    for (const code of codes)
      db.run(
        'INSERT INTO recovery_codes (uid, code_hash, created_at) VALUES (?, ?, ?)',
        uid,
        codeHash(uid, normaliseCode(code)!),
        now,
      );
  });
  return codes;
}

/** How many unused codes the account has, and when they were made (0 when none). */
export function recoveryCodesLeft(db: Db, uid: number): { remaining: number; created_at: number } {
  const row = db.one<{ n: number; created_at: number | null }>(
    'SELECT count(*) AS n, max(created_at) AS created_at FROM recovery_codes WHERE uid = ?',
    uid,
  )!;
  return { remaining: row.n, created_at: row.created_at ?? 0 };
}

/** Stands in for an unknown account's codes, so an unknown name costs the same comparisons as a known one. */
const dummyHashes = Array.from({ length: recoveryCodeCount }, () => randomBytes(32));

/**
 * Whether `typed` is one of the account's unused codes (uid undefined: an unknown name). Compares
 * in constant time against every stored hash, with no early exit, so the time taken tells
 * nothing about how close a guess was. Returns the hash to use up in the writing transaction.
 */
export function matchRecoveryCode(db: Db, uid: number | undefined, typed: string): Buffer | undefined {
  const code = normaliseCode(typed) ?? '';
  const given = codeHash(uid ?? 0, code);
  const stored =
    uid === undefined
      ? dummyHashes
      : db
          .all<{ code_hash: Buffer }>('SELECT code_hash FROM recovery_codes WHERE uid = ?', uid)
          .map((r) => r.code_hash);
  let found: Buffer | undefined;
  for (const hash of stored) if (timingSafeEqual(hash, given)) found = hash;
  return code && uid !== undefined ? found : undefined;
}

/**
 * Uses up a code inside the transaction that sets the new password: false when it is gone, as
 * when a concurrent recovery with the same code committed first. Why again here: the password is
 * hashed between the match and this write, and the code must work once only.
 */
export function useRecoveryCode(db: Db, uid: number, hash: Buffer): boolean {
  return db.run('DELETE FROM recovery_codes WHERE uid = ? AND code_hash = ?', uid, hash).changes === 1;
}
