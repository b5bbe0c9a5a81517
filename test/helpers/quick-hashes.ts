import type { Passwords } from '../../lib/accounts/passwords.ts';

/** The cost quickHashes hashes at: the lowest a stored hash may name (lib/accounts/passwords.ts reads ln=10 to 20). */
const quickLogN = 10;

/**
 * The board's scrypt at ln=10 instead of BOARD_SCRYPT_LOGN (14 at the least), as startBoard's
 * `passwords` option: for a suite that registers or fails logins by the dozen to count a limit,
 * where the hash's cost is not what it tests (a sixteenth of the work each). The hashes are still
 * real scrypt in the board's own format, made and checked on the board's hashing threads.
 */
export function quickHashes(scrypt: Passwords): Passwords {
  return {
    ...scrypt,
    hash: (password, _logN, signal, bound) => scrypt.hash(password, quickLogN, signal, bound),
    dummyHash: () => scrypt.dummyHash(quickLogN),
  };
}
