import type { Passwords } from '../../lib/accounts/passwords.ts';
import { callGate, type HeldRequest } from './gate.ts';

type Held = 'verify' | 'hash';

/**
 * The board's scrypt with a gate behind it (test/helpers/gate.ts): `holdNext('verify')` holds the
 * next password check after it has run, `holdNext('hash')` the next new hash, until `release()`.
 * `passwords` wraps the board's own (createApp's AppOptions.passwords), so its hashing slots stay the board's.
 */
export function passwordGate(): {
  passwords: (scrypt: Passwords) => Passwords;
  holdNext(kind: Held): HeldRequest;
  releaseAll(): void;
} {
  const gate = callGate<Held>(['verify', 'hash']);
  return {
    passwords: (scrypt) => ({
      ...scrypt,
      async verify(...args) {
        const matches = await scrypt.verify(...args);
        await gate.pass('verify');
        return matches;
      },
      async hash(...args) {
        const hash = await scrypt.hash(...args);
        await gate.pass('hash');
        return hash;
      },
    }),
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
