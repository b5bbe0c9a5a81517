import type { WebAuthn } from '../../lib/accounts/webauthn.ts';
import { gateAfter } from './gate.ts';

/**
 * The board's passkey checks (wrapping createApp's AppOptions.webauthn) with a gate behind them (test/helpers/gate.ts): `holdNext('verifyAuthentication')`
 * holds the next signature check after it has run, until `release()`; so a test can ban, reset or
 * delete while a passkey sign-in is in flight.
 */
export function passkeyGate() {
  const gate = gateAfter<WebAuthn, keyof WebAuthn>(['verifyRegistration', 'verifyAuthentication']);
  return { webauthn: gate.wrap, holdNext: gate.holdNext, releaseAll: gate.releaseAll };
}
