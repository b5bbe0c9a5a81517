import type { Passwords } from '../../lib/accounts/passwords.ts';
import { gateAfter } from './gate.ts';

/**
 * The board's scrypt with a gate behind it (test/helpers/gate.ts): `holdNext('verify')` holds the
 * next password check after it has run, `holdNext('hash')` the next new hash, until `release()`.
 * `passwords` wraps the board's own (createApp's AppOptions.passwords), so its hashing slots stay the board's.
 */
export function passwordGate() {
  const gate = gateAfter<Passwords, 'verify' | 'hash'>(['verify', 'hash']);
  return { passwords: gate.wrap, holdNext: gate.holdNext, releaseAll: gate.releaseAll };
}
