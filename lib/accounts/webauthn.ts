import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedAuthenticationResponse,
  VerifiedRegistrationResponse,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { passkeyPromptMs } from '../product.ts';

/**
 * Every call into @simplewebauthn/server, the well-kept WebAuthn library the board relies on for
 * parsing attestations and checking signatures (never hand-written). The relying party is the
 * board's origin (BOARD_ORIGIN): its host name is the RP ID, the origin the only one accepted.
 */

/** The two checks a request waits on; tests wrap them to hold a request in flight (test/helpers/passkey-gate.ts). */
export interface WebAuthn {
  verifyRegistration(options: Parameters<typeof verifyRegistrationResponse>[0]): Promise<VerifiedRegistrationResponse>;
  verifyAuthentication(
    options: Parameters<typeof verifyAuthenticationResponse>[0],
  ): Promise<VerifiedAuthenticationResponse>;
}

/** Loaded on first use: the library is a third of the board's start-up, and most processes never need it. */
let loaded: Promise<[typeof import('@simplewebauthn/server'), typeof import('@simplewebauthn/server/helpers')]>;
const library = () =>
  (loaded ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]));

export const simpleWebAuthn: WebAuthn = {
  verifyRegistration: async (options) => (await library())[0].verifyRegistrationResponse(options),
  verifyAuthentication: async (options) => (await library())[0].verifyAuthenticationResponse(options),
};

export function relyingParty(origin: string): { id: string; origin: string } {
  return { id: new URL(origin).hostname, origin };
}

/**
 * Options for navigator.credentials.create: a discoverable credential (the sign-in needs no
 * name typed), user verification preferred (a PIN or fingerprint where the authenticator has
 * one; a security key without them still works), no attestation (the board trusts any authenticator).
 */
export async function registrationOptions(p: {
  origin: string;
  challenge: string;
  username: string;
  handle: Uint8Array;
  exclude: { id: string; transports: string }[];
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const rp = relyingParty(p.origin);
  const [{ generateRegistrationOptions }] = await library();
  return generateRegistrationOptions({
    rpName: rp.id,
    rpID: rp.id,
    userName: p.username,
    userDisplayName: p.username,
    userID: new Uint8Array(p.handle),
    challenge: challengeBytes(p.challenge),
    timeout: passkeyPromptMs,
    attestationType: 'none',
    excludeCredentials: p.exclude.map(({ id, transports }) => ({ id, transports: splitTransports(transports) })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
  });
}

/** Options for navigator.credentials.get: no allow list, so the authenticator offers its passkeys for this board. */
export async function authenticationOptions(
  origin: string,
  challenge: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const [{ generateAuthenticationOptions }] = await library();
  return generateAuthenticationOptions({
    rpID: relyingParty(origin).id,
    challenge: challengeBytes(challenge),
    timeout: passkeyPromptMs,
    userVerification: 'preferred',
  });
}

/** The library base64url-encodes a challenge it is given: as bytes, so the options carry the stored string itself. */
function challengeBytes(challenge: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(challenge, 'base64url'));
}

export async function challengeOf(response: { response: { clientDataJSON: string } }): Promise<string | undefined> {
  const [, { decodeClientDataJSON }] = await library();
  try {
    const challenge = decodeClientDataJSON(response.response.clientDataJSON).challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

export function parseCredential<T extends RegistrationResponseJSON | AuthenticationResponseJSON>(
  raw: string,
): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, rawId, type, response } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof rawId !== 'string' || type !== 'public-key') return undefined;
  if (typeof response !== 'object' || response === null) return undefined;
  if (typeof (response as Record<string, unknown>).clientDataJSON !== 'string') return undefined;
  return value as T;
}

export function splitTransports(transports: string): AuthenticatorTransport[] {
  return transports ? (transports.split(',') as AuthenticatorTransport[]) : [];
}

type AuthenticatorTransport = NonNullable<RegistrationResponseJSON['response']['transports']>[number];
