import { maxPasskeyNameLength, maxPasskeysPerAccount } from '../accounts/passkeys.ts';
import { recoveryCodeCount } from '../accounts/recovery-codes.ts';
import { loginTimeout, newPasswords } from './auth.ts';
import {
  arrayOf,
  field,
  integer,
  json,
  object,
  oneOfValues,
  requiredField,
  status,
  string,
  time,
  type Area,
  type JsonSchema,
} from './kit.ts';

/** docs/API.md "Passkeys", "Recovery codes" and "Re-authentication". */

/** The re-authentication rule (lib/api/reauth.ts): one of the two. */
export const reauthentication = {
  pass1: field("the account's password (or give `passkey`)"),
  passkey: field(
    'instead of the password: a passkey of the account, the JSON of PublicKeyCredential.toJSON() over a challenge of POST /api/auth/passkey/options',
  ),
};

/** WebAuthn options as @simplewebauthn/server writes them, for the browser's navigator.credentials; open to members WebAuthn adds later. */
const webAuthnOptions = (description: string, required: string[]): JsonSchema => ({
  type: 'object',
  description,
  required: ['challenge', ...required],
  properties: {
    challenge: string('base64url; single use, valid 5 minutes'),
    timeout: integer('milliseconds'),
    ...Object.fromEntries(required.map((name) => [name, name === 'rpId' ? string('the RP ID') : { type: 'object' }])),
  },
});

const passkey = object({
  id: string('the passkey id', { pattern: '^[0-9a-f]{32}$' }),
  name: string(undefined, { minLength: 1, maxLength: maxPasskeyNameLength }),
  created_at: time(),
  last_used: time('Unix seconds of the last sign-in or confirmation with it; 0 never'),
  synced: oneOfValues(0, 1),
  backed_up: oneOfValues(0, 1),
});

const credential = (what: string) => requiredField(`the JSON of PublicKeyCredential.toJSON() from ${what}`);

export const passkeys: Area = {
  tag: 'Passkeys and recovery',
  description:
    'Sign-in with passkeys (WebAuthn, discoverable, RP ID and origin from BOARD_ORIGIN) and recovery codes for a lost password.',
  operations: {
    'POST /api/auth/passkey/options': {
      id: 'passkeySignInOptions',
      summary: 'A sign-in challenge and the options for navigator.credentials.get (no account named)',
      ok: json('the options', webAuthnOptions('PublicKeyCredentialRequestOptionsJSON', ['rpId'])),
      errors: { 429: ['rate.limited'] },
    },
    'POST /api/auth/passkey/login': {
      id: 'passkeySignIn',
      summary: 'Sign in with a passkey (sets the session cookie, as login)',
      description: 'With a valid session already: 200 `already_logged_in`, no new session.',
      fields: {
        credential: credential('navigator.credentials.get'),
        timeout: loginTimeout,
      },
      ok: json('logged in, or already logged in', status('ok', 'already_logged_in')),
      errors: { 400: ['input.invalid'], 401: ['passkey.failed'], 403: ['auth.banned'], 429: ['rate.limited'] },
    },
    'POST /api/auth/recover': {
      id: 'recover',
      summary: 'Set a new password with a recovery code (logs in, ends every other session and reset link)',
      fields: {
        user: requiredField('the username, any letter case'),
        code: requiredField('one of the recovery codes; dashes, spaces and letter case do not matter'),
        ...newPasswords,
      },
      ok: json('the password is set and a session cookie is set', object({ username: string() })),
      errors: {
        400: ['input.invalid', 'auth.invalid'],
        401: ['recovery.invalid'],
        403: ['auth.banned'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
    'POST /api/user/passkeys/options': {
      id: 'newPasskeyOptions',
      summary: 'Re-authenticate, then a registration challenge and the options for navigator.credentials.create',
      fields: reauthentication,
      ok: json('the options', webAuthnOptions('PublicKeyCredentialCreationOptionsJSON', ['rp', 'user'])),
      errors: {
        400: ['input.invalid'],
        403: ['auth.bad_password', 'auth.bad_passkey'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
    'GET /api/user/passkeys': {
      id: 'passkeys',
      summary: 'The own passkeys, oldest first (never a key)',
      ok: json('the passkeys', arrayOf(passkey, maxPasskeysPerAccount)),
    },
    'POST /api/user/passkeys': {
      id: 'addPasskey',
      summary: 'Store a new passkey under a chosen name',
      fields: {
        name: requiredField(`1–${maxPasskeyNameLength} characters`, {
          type: 'string',
          minLength: 1,
          maxLength: maxPasskeyNameLength,
        }),
        credential: credential('navigator.credentials.create'),
      },
      ok: json('the new passkey', passkey, 201),
      errors: {
        400: ['input.invalid', 'passkey.registration_failed'],
        409: ['passkey.limit', 'passkey.exists'],
      },
    },
    'POST /api/user/passkeys/:id/delete': {
      id: 'deletePasskey',
      summary: 'Delete a passkey (re-authentication: the password or a passkey)',
      fields: reauthentication,
      ok: json('deleted', status('deleted')),
      errors: {
        400: ['input.invalid'],
        403: ['auth.bad_password', 'auth.bad_passkey'],
        404: ['passkey.not_found'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
    'GET /api/user/recovery-codes': {
      id: 'recoveryCodes',
      summary: 'How many recovery codes are left (never the codes)',
      ok: json(
        'the count',
        object({
          remaining: integer(undefined, { minimum: 0, maximum: recoveryCodeCount }),
          created_at: time('when the set was made; 0 when there is none'),
        }),
      ),
    },
    'POST /api/user/recovery-codes': {
      id: 'newRecoveryCodes',
      summary: `Re-authenticate, then ${recoveryCodeCount} new recovery codes replace the old ones (shown this once)`,
      fields: reauthentication,
      ok: json(
        'the codes',
        object({
          codes: {
            ...arrayOf(string(undefined, { pattern: '^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$' })),
            minItems: recoveryCodeCount,
            maxItems: recoveryCodeCount,
          },
          created_at: time(),
        }),
      ),
      errors: {
        400: ['input.invalid'],
        403: ['auth.bad_password', 'auth.bad_passkey'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
  },
};
