import { scryptPasswords, type Passwords } from '../../lib/accounts/passwords.ts';
import { callGate, type HeldRequest } from './gate.ts';

/**
 * Real scrypt with a gate behind it (test/helpers/gate.ts): `holdNext('verify')` holds the next
 * password check after it has run, `holdNext('hash')` the next new hash, until `release()`.
 */
export function passwordGate(): {
  passwords: Passwords;
  holdNext(kind: keyof Passwords): HeldRequest;
  releaseAll(): void;
} {
  const gate = callGate<keyof Passwords>(['verify', 'hash']);
  return {
    passwords: {
      async verify(...args) {
        const matches = await scryptPasswords.verify(...args);
        await gate.pass('verify');
        return matches;
      },
      async hash(...args) {
        const hash = await scryptPasswords.hash(...args);
        await gate.pass('hash');
        return hash;
      },
    },
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
