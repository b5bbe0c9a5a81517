import type { WebAuthn } from '../../lib/accounts/webauthn.ts';
import { callGate, type HeldRequest } from './gate.ts';

/**
 * The board's passkey checks (wrapping createApp's AppOptions.webauthn) with a gate behind them (test/helpers/gate.ts): `holdNext('verifyAuthentication')`
 * holds the next signature check after it has run, until `release()`; so a test can ban, reset or
 * delete while a passkey sign-in is in flight.
 */
export function passkeyGate(): {
  webauthn: (library: WebAuthn) => WebAuthn;
  holdNext(kind: keyof WebAuthn): HeldRequest;
  releaseAll(): void;
} {
  const gate = callGate<keyof WebAuthn>(['verifyRegistration', 'verifyAuthentication']);
  return {
    webauthn: (library) => ({
      async verifyRegistration(options) {
        const result = await library.verifyRegistration(options);
        await gate.pass('verifyRegistration');
        return result;
      },
      async verifyAuthentication(options) {
        const result = await library.verifyAuthentication(options);
        await gate.pass('verifyAuthentication');
        return result;
      },
    }),
    holdNext: gate.holdNext,
    releaseAll: gate.releaseAll,
  };
}
