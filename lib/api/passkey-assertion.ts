import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  findPasskeyByCredentialId,
  findUidByHandle,
  type PasskeyUse,
  type StoredPasskey,
} from '../accounts/passkeys.ts';
import { takeChallenge } from '../accounts/webauthn-challenges.ts';
import { challengeOf, parseCredential, relyingParty, splitTransports } from '../accounts/webauthn.ts';
import type { Ctx } from '../http/context.ts';
import { invalidField } from '../errors.ts';
import { fieldMessages } from '../messages.ts';

/**
 * A passkey's signature over a sign-in challenge (POST /api/auth/passkey/options), as a sign-in
 * and a re-authentication (lib/api/reauth.ts) read it: the challenge is used up at once, the
 * credential looked up, and only then, once the caller has applied the login brakes to the
 * account found, the signature checked.
 */
export interface Assertion {
  response: AuthenticationResponseJSON;
  challenge: string;
  passkey: StoredPasskey | undefined;
  challengeTaken: boolean;
}

export async function readAssertion(ctx: Ctx, raw: string, field: string): Promise<Assertion> {
  const response = parseCredential<AuthenticationResponseJSON>(raw);
  const challenge = response && (await challengeOf(response));
  if (!response || !challenge) throw invalidField(field, fieldMessages.passkeyCredential);
  const { db, clock } = ctx.app;
  return {
    response,
    challenge,
    challengeTaken: takeChallenge(db, challenge, 0, clock.now()),
    passkey: findPasskeyByCredentialId(db, response.id),
  };
}

/**
 * Checks the signature (@simplewebauthn/server): the board's origin and RP ID, user presence, the
 * counter moving on, and a returned user handle naming the same account as the credential. Returns
 * what the writing transaction stores (usePasskey), or undefined when anything failed.
 */
export async function verifyAssertion(ctx: Ctx, assertion: Assertion): Promise<PasskeyUse | undefined> {
  const { response, challenge, passkey, challengeTaken } = assertion;
  if (!challengeTaken || !passkey) return undefined;
  const handle = response.response.userHandle;
  if (handle && findUidByHandle(ctx.app.db, Buffer.from(handle, 'base64url')) !== passkey.uid) return undefined;
  const rp = relyingParty(ctx.app.config.origin);
  try {
    const { verified, authenticationInfo } = await ctx.app.webauthn.verifyAuthentication({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: passkey.counter,
        transports: splitTransports(passkey.transports),
      },
      requireUserVerification: false,
    });
    if (!verified) return undefined;
    return {
      id: passkey.id,
      newCounter: authenticationInfo.newCounter,
      backedUp: authenticationInfo.credentialBackedUp,
    };
  } catch {
    return undefined; // a malformed or forged response: the library says why, the client learns only "failed"
  }
}
