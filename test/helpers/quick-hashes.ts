import type { Passwords } from '../../lib/accounts/passwords.ts';

/** The cost quickHashes hashes at: the lowest a stored hash may name (lib/accounts/passwords.ts reads ln=10 to 20). */
const quickLogN = 10;

/**
 * The board's scrypt at ln=10 instead of BOARD_SCRYPT_LOGN (14 at the least): startBoard's
 * default, since the suite registers and logs in thousands of times and the hash's cost is what
 * almost none of those tests are about (a sixteenth of the work each). The hashes are still real
 * scrypt in the board's own format, made and checked on the board's hashing threads. Boards in
 * child processes (test/helpers/child-server.ts) hash at the full cost.
 */
export function quickHashes(scrypt: Passwords): Passwords {
  return {
    ...scrypt,
    // Every argument but the cost passes through: a registration's line (the fifth) included.
    hash: (password, _logN, signal, bound, registration) =>
      scrypt.hash(password, quickLogN, signal, bound, registration),
    dummyHash: () => scrypt.dummyHash(quickLogN),
  };
}

/** The board's own scrypt at BOARD_SCRYPT_LOGN, as startBoard's `passwords` option: for a test of the stored hash's cost. */
export function fullCostHashes(scrypt: Passwords): Passwords {
  return scrypt;
}
