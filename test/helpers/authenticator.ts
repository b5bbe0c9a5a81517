import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software passkey authenticator for the API tests: ES256 keys, "none" attestation, a
 * discoverable credential per registration, a signature counter, and the client data a browser
 * at `origin` would write (WebAuthn §5.8.1, §6.1). It answers the board's options as
 * navigator.credentials would, so a test can also answer wrongly on purpose (another origin, a
 * replayed response, a forged signature).
 */

interface Credential {
  id: Buffer;
  key: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

const flags = { userPresent: 0x01, userVerified: 0x04, backupEligible: 0x08, backedUp: 0x10, attested: 0x40 };

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  readonly origin: string;
  readonly options: { countSignatures?: boolean };
  /** Counters that stay 0 (as synced passkeys keep none); otherwise each signature counts one up. */
  constructor(origin: string, options: { countSignatures?: boolean } = {}) {
    this.origin = origin;
    this.options = options;
  }

  /**
   * navigator.credentials.create: a new key pair for the options' RP and user, under a new
   * credential id or, to test a duplicate, one given.
   */
  create(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin = this.origin,
    credentialId: Buffer = randomBytes(16),
  ): RegistrationResponseJSON {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
    const rpId = options.rp.id!;
    const credential: Credential = {
      id: credentialId,
      key: privateKey,
      rpId,
      userHandle: options.user.id,
      counter: 0,
    };
    this.credentials.push(credential);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      this.authHeader(rpId, flags.attested, 0),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credential.id,
      Buffer.from(cose),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const clientDataJSON = clientData('webauthn.create', options.challenge, origin);
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get: signs the options' challenge with `credential` (default: the newest for the RP). */
  get(
    options: PublicKeyCredentialRequestOptionsJSON,
    { origin = this.origin, credential = this.credentials.at(-1) }: { origin?: string; credential?: Credential } = {},
  ): AuthenticationResponseJSON {
    if (!credential) throw new Error('the authenticator holds no passkey');
    if (this.options.countSignatures) credential.counter++;
    const authData = this.authHeader(options.rpId ?? credential.rpId, 0, credential.counter);
    const clientDataJSON = clientData('webauthn.get', options.challenge, origin);
    const signed = Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]);
    const id = credential.id.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: sign('sha256', signed, credential.key).toString('base64url'), // DER, as ES256 in WebAuthn
        userHandle: credential.userHandle,
      },
    };
  }

  /** rpIdHash, flags (user present and verified, backed up, plus `more`), signature counter. */
  private authHeader(rpId: string, more: number, counter: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const bits = flags.userPresent | flags.userVerified | flags.backupEligible | flags.backedUp | more;
    return Buffer.concat([sha256(Buffer.from(rpId)), Buffer.from([bits]), count]);
  }
}

function clientData(type: string, challenge: string, origin: string): string {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })).toString('base64url');
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
