import assert from 'node:assert/strict';
import type { TestBoard } from './board.ts';
import type { Answer, Client } from './client.ts';
import { SoftAuthenticator } from './authenticator.ts';
import { password } from './members.ts';

/** Passkeys through the API, as the settings and login pages use it (docs/API.md "Passkeys"). */

/** A software authenticator that answers as a browser at the board's origin would. */
export function authenticatorFor(board: TestBoard, options: { countSignatures?: boolean } = {}): SoftAuthenticator {
  return new SoftAuthenticator(board.config.origin, options);
}

/** Registers a new passkey of `client`'s account on `authenticator`, confirmed with the password; returns the answer. */
export async function addPasskey(
  client: Client,
  authenticator: SoftAuthenticator,
  name = 'Handy',
  confirm: Record<string, string> = { pass1: password },
): Promise<Answer> {
  const options = await client.post('/api/user/passkeys/options', confirm);
  assert.equal(options.status, 200, options.text);
  return client.post('/api/user/passkeys', {
    name,
    credential: JSON.stringify(authenticator.create(options.body)),
  });
}

/** A sign-in response of `authenticator` over a fresh sign-in challenge, as the form field carries it. */
export async function signInCredential(
  client: Client,
  authenticator: SoftAuthenticator,
  how: Parameters<SoftAuthenticator['get']>[1] = {},
): Promise<string> {
  const options = await client.post('/api/auth/passkey/options');
  assert.equal(options.status, 200, options.text);
  return JSON.stringify(authenticator.get(options.body, how));
}

/** Signs in with the authenticator's newest passkey: no name typed. */
export async function passkeySignIn(
  client: Client,
  authenticator: SoftAuthenticator,
  fields: Record<string, string | number> = {},
): Promise<Answer> {
  const credential = await signInCredential(client, authenticator);
  return client.post('/api/auth/passkey/login', { credential, ...fields });
}
