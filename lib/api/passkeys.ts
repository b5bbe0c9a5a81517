import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { addPasskey, credentialIdsOf, deletePasskey, listPasskeys, userHandle } from '../accounts/passkeys.ts';
import { findUserById } from '../accounts/users.ts';
import { createChallenge, takeChallenge } from '../accounts/webauthn-challenges.ts';
import {
  authenticationOptions,
  challengeOf,
  parseCredential,
  registrationOptions,
  relyingParty,
} from '../accounts/webauthn.ts';
import { created, requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, recordFailedLogin } from '../limits/login-limits.ts';
import { fieldMessages } from '../messages.ts';
import { maxPasskeyNameLength, maxPasskeysPerAccount, passkeyPromptMs } from '../product.ts';
import {
  arrayOf,
  json,
  object,
  oneOfValues,
  requiredField,
  status,
  string,
  time,
  type JsonSchema,
  type Operation,
} from '../openapi/kit.ts';
import {
  loginAttempt,
  loginBucketWhen,
  loginTimeoutField,
  parseTimeout,
  passwordBusy,
  setSessionCookie,
  startSession,
} from './auth.ts';
import { readAssertion, verifyAssertion } from './passkey-assertion.ts';
import { confirmIdentity, reauthenticationFields, reauthenticationWhen, recheckIdentity } from './reauth.ts';
import { codePoints } from '../text/code-points.ts';

const webAuthnOptions = (description: string, required: string[]): JsonSchema => ({
  type: 'object',
  description,
  required: ['challenge', ...required],
  properties: {
    challenge: string('base64url; single use, valid 5 minutes'),
    timeout: { type: 'integer', minimum: 0, description: `milliseconds the browser waits: ${passkeyPromptMs}` },
    ...Object.fromEntries(required.map((name) => [name, name === 'rpId' ? string('the RP ID') : { type: 'object' }])),
  },
});

const passkeyItem = object({
  id: string('opaque: 32 hex characters, random, not the credential id', { pattern: '^[0-9a-f]{32}$' }),
  name: string(undefined, { minLength: 1, maxLength: maxPasskeyNameLength }),
  created_at: time(),
  last_used: time('the last sign-in or confirmation with it; 0 until the first'),
  synced: { ...oneOfValues(0, 1), description: 'the authenticator may copy it to other devices' },
  backed_up: { ...oneOfValues(0, 1), description: 'the authenticator says it has copied it' },
});

const credentialField = (what: string) => requiredField(`the JSON of PublicKeyCredential.toJSON() from ${what}`);

const reauthenticationErrors = {
  400: ['input.invalid'],
  403: ['auth.bad_password', 'auth.bad_passkey'],
  503: ['auth.busy'],
} as const;

export async function signInOptions(ctx: Ctx) {
  await ctx.form();
  const challenge = createChallenge(ctx.app.db, 0, ctx.app.clock.now());
  return authenticationOptions(ctx.app.config.origin, challenge);
}
signInOptions.doc = {
  id: 'passkeySignInOptions',
  summary: 'A sign-in challenge and the options for navigator.credentials.get (no account named)',
  description:
    'No fields. `userVerification` `preferred`, and no `allowCredentials`: the passkeys are discoverable, so the authenticator offers its passkeys for this board and nobody types a name. The same options serve a passkey re-authentication (docs/API.md "Re-authentication").',
  ok: json('the options', webAuthnOptions('PublicKeyCredentialRequestOptionsJSON', ['rpId'])),
} satisfies Operation;

export async function signIn(ctx: Ctx) {
  const form = await ctx.form();
  if (ctx.session()) return { status: 'already_logged_in' };
  const timeout = parseTimeout(form.fields.get('timeout'));
  const assertion = await readAssertion(ctx, textField(form, 'credential'), 'credential');
  const user = assertion.passkey && findUserById(ctx.app.db, assertion.passkey.uid);
  // The brakes of the account where the credential names one; an unknown credential counts under no name.
  const attempt = loginAttempt(ctx, user?.username ?? '');
  checkLoginAllowed(attempt);
  const passkey = user && (await verifyAssertion(ctx, assertion));
  if (!user || !passkey) {
    recordFailedLogin({ ...attempt, now: ctx.app.clock.now() });
    throw new ApiError(401, 'passkey.failed');
  }
  // createSession re-reads the account: a ban, a new password or the passkey's deletion while
  // the signature was checked refuses the session, as for a password login.
  setSessionCookie(ctx, startSession(ctx, user.uid, user.pass_hash, timeout, passkey), timeout);
  return { status: 'ok' };
}
signIn.doc = {
  id: 'passkeySignIn',
  summary: 'Sign in with a passkey (sets the session cookie, as login)',
  description:
    "The session cookie, `last_login` and the session's `description` come as at a password login; with a valid session already: 200 `already_logged_in`, no new session. The passkey's signature counter and backup flag are stored, and its `last_used` set, in the transaction that makes the session. A password reset and a password change end the sessions a passkey made, as every other session; the passkeys themselves stay (check the list after a reset, docs/SECURITY.md).",
  fields: { credential: credentialField('navigator.credentials.get'), timeout: loginTimeoutField },
  ok: json('logged in, or already logged in', status('ok', 'already_logged_in')),
  errors: { 400: ['input.invalid'], 401: ['passkey.failed'], 403: ['auth.banned'] },
  when: {
    'input.invalid': '`field` `credential`: no credential at all; `field` `timeout`: as at login',
    'passkey.failed':
      'the challenge is unknown, used or expired; the board knows no such passkey; the origin, RP ID, signature or user handle is wrong; the signature counter did not move on (a cloned authenticator); or, while the signature was checked, the passkey was deleted, the password changed or reset, or the account deleted. The answer does not say which',
    'auth.banned':
      'the account is banned, also when the ban came while the signature was checked (`banned_until` next to `error`)',
    'rate.limited': `${loginBucketWhen}: a failed passkey sign-in counts as a failed login of the passkey's account (an unknown passkey under no name)`,
  },
} satisfies Operation;

/**
 * POST /api/user/passkeys/options: re-authentication first (lib/api/reauth.ts: a stolen session
 * must not plant a passkey that outlives it), then a registration challenge of this account and
 * the options for navigator.credentials.create.
 */
export async function newPasskeyOptions(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, config, clock } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  const confirmation = await confirmIdentity(ctx, user, form);
  const challenge = db.tx(() => {
    recheckIdentity(ctx, session, confirmation);
    return createChallenge(db, user.uid, clock.now());
  });
  return registrationOptions({
    origin: config.origin,
    challenge,
    username: user.username,
    handle: userHandle(db, user.uid),
    exclude: credentialIdsOf(db, user.uid),
  });
}
newPasskeyOptions.doc = {
  id: 'newPasskeyOptions',
  summary: 'Re-authenticate, then a registration challenge and the options for navigator.credentials.create',
  description:
    '`rp`: `id` and `name` the host of BOARD_ORIGIN; `user`: `id` a random 32-byte handle made once per account, `name` and `displayName` the username; `authenticatorSelection` `{residentKey: "required", requireResidentKey: true, userVerification: "preferred"}`; `attestation` `none` (any authenticator is welcome: the board asks no maker\'s certificate); `excludeCredentials` the account\'s passkeys, so an authenticator makes no second one for the account.',
  fields: reauthenticationFields,
  ok: json('the options', webAuthnOptions('PublicKeyCredentialCreationOptionsJSON', ['rp', 'user'])),
  errors: reauthenticationErrors,
  when: { ...reauthenticationWhen, 'auth.busy': passwordBusy },
} satisfies Operation;

export async function addNewPasskey(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const name = textField(form, 'name').trim();
  if (!name || codePoints(name) > maxPasskeyNameLength || /\p{Cc}/u.test(name))
    throw invalidField('name', fieldMessages.passkeyName);
  const response = parseCredential<RegistrationResponseJSON>(textField(form, 'credential'));
  const challenge = response && (await challengeOf(response));
  if (!response || !challenge) throw invalidField('credential', fieldMessages.passkeyCredential);
  const { db, clock, config, webauthn } = ctx.app;
  // Used up whatever comes next: a registration response answers once.
  const failed = () => new ApiError(400, 'passkey.registration_failed', { field: 'credential' });
  if (!takeChallenge(db, challenge, session.uid, clock.now())) throw failed();
  const rp = relyingParty(config.origin);
  const result = await webauthn
    .verifyRegistration({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    })
    .catch(() => undefined);
  if (!result?.verified) throw failed();
  const { credential, credentialDeviceType, credentialBackedUp } = result.registrationInfo;
  const added = addPasskey(
    db,
    {
      uid: session.uid,
      credentialId: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name,
    },
    clock.now(),
  );
  if ('refused' in added)
    throw new ApiError(409, added.refused === 'limit' ? 'passkey.limit' : 'passkey.exists', { field: 'credential' });
  return created(listPasskeys(db, session.uid).find((passkey) => passkey.id === added.id));
}
addNewPasskey.doc = {
  id: 'addPasskey',
  summary: 'Store a new passkey under a chosen name',
  fields: {
    name: requiredField(
      `chosen by the owner ("Handy", "Laptop"): 1–${maxPasskeyNameLength} characters after trimming, no control characters`,
      {
        type: 'string',
        minLength: 1,
        maxLength: maxPasskeyNameLength,
      },
    ),
    credential: credentialField(
      'navigator.credentials.create, over the challenge of POST /api/user/passkeys/options of the same account',
    ),
  },
  description:
    'Stored: the credential id, its COSE public key, signature counter, transports, whether it may be synced (`multiDevice`) and is backed up, the name and the time.',
  ok: json('the new passkey, as the list shows it', passkeyItem, 201),
  errors: { 400: ['input.invalid', 'passkey.registration_failed'], 409: ['passkey.limit', 'passkey.exists'] },
  when: {
    'input.invalid': '`field` `name`: a bad name; `field` `credential`: no credential at all',
    'passkey.registration_failed':
      "`field` `credential`: the challenge is unknown, used, expired or another account's; the origin, RP ID or attestation is wrong",
    'passkey.limit': `the account has ${maxPasskeysPerAccount} passkeys already`,
    'passkey.exists': 'this credential is registered already',
    'auth.required': 'also when the session ended meanwhile: nothing is stored',
  },
} satisfies Operation;

export function passkeys(ctx: Ctx) {
  const me = requireUser(ctx);
  return listPasskeys(ctx.app.db, me.uid);
}
passkeys.doc = {
  id: 'passkeys',
  summary: 'The own passkeys, oldest first (never a key)',
  ok: json('the passkeys', arrayOf(passkeyItem, maxPasskeysPerAccount)),
} satisfies Operation;

export async function removePasskey(ctx: Ctx<'id'>) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db } = ctx.app;
  const id = ctx.params.id;
  // Another account's id answers like an unknown one: ids are not to be probed.
  if (!listPasskeys(db, session.uid).some((passkey) => passkey.id === id)) throw new ApiError(404, 'passkey.not_found');
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  const confirmation = await confirmIdentity(ctx, user, form);
  db.tx(() => {
    recheckIdentity(ctx, session, confirmation);
    if (!deletePasskey(db, session.uid, id)) throw new ApiError(404, 'passkey.not_found');
  });
  return { status: 'deleted' };
}
removePasskey.doc = {
  id: 'deletePasskey',
  summary: 'Delete a passkey (re-authentication: the password or a passkey)',
  description:
    'The passkey being deleted may confirm it too: holding it is proof enough. It no longer signs in, also not a sign-in already in flight.',
  fields: reauthenticationFields,
  ok: json('deleted', status('deleted')),
  errors: { ...reauthenticationErrors, 404: ['passkey.not_found'] },
  when: {
    ...reauthenticationWhen,
    'auth.busy': passwordBusy,
    'passkey.not_found':
      "an unknown id or another account's (the same answer: ids are not to be probed), before the confirmation is checked",
  },
} satisfies Operation;
