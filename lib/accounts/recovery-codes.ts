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

function newCode(): string {
  const chars = Array.from({ length: codeLength }, () => alphabet[randomInt(alphabet.length)]!);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}

export function normaliseCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  return code.length === codeLength && [...code].every((c) => alphabet.includes(c)) ? code : undefined;
}

/**
 * HMAC-SHA256 of the normalised code, keyed by the account. A fast hash suffices: a code is 80
 * random bits, and slow hashing only helps secrets a person chose. Keyed, a stored hash matches
 * only its own account, so a row copied to another account, or a code tried against every account,
 * matches nothing.
 */
function codeHash(uid: number, code: string): Buffer {
  return createHmac('sha256', `board recovery code/${uid}`).update(code).digest();
}

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
