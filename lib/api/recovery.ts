import { afterPasswordChange } from '../account-data/deletion.ts';
import { hashQueueBound } from '../accounts/passwords.ts';
import {
  matchRecoveryCode,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  useRecoveryCode,
} from '../accounts/recovery-codes.ts';
import { findUserById, findUserByName, setPasswordHash } from '../accounts/users.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { recoveryCodeCount } from '../product.ts';
import { ApiError, invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, recordFailedLogin } from '../limits/login-limits.ts';
import { fieldMessages } from '../messages.ts';
import { json, object, requiredField, string, time, type Operation } from '../openapi/kit.ts';
import {
  loginAttempt,
  loginBucketWhen,
  newPassword,
  newPasswordFields,
  passwordBusy,
  refuseBanned,
  setSessionCookie,
  startSession,
} from './auth.ts';
import { confirmIdentity, reauthenticationFields, reauthenticationWhen, recheckIdentity } from './reauth.ts';

/** A recovery logs in for a day, as a reset does. */
const sessionLifetime = 86_400;

export async function newRecoveryCodes(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  const confirmation = await confirmIdentity(ctx, user, form);
  const now = clock.now();
  const codes = db.tx(() => {
    recheckIdentity(ctx, session, confirmation);
    return replaceRecoveryCodes(db, user.uid, now);
  });
  return { codes, created_at: now };
}
newRecoveryCodes.doc = {
  id: 'newRecoveryCodes',
  summary: `Re-authenticate, then ${recoveryCodeCount} new recovery codes replace the old ones (shown this once)`,
  description:
    "A code is 16 characters of Crockford's base32 (80 random bits) in four groups; typing it, dashes, spaces and letter case do not matter, and `I`, `L`, `O` read as `1`, `1`, `0`. Only an HMAC-SHA256 of each is stored (lib/accounts/recovery-codes.ts says why a fast hash is enough for 80 random bits).",
  fields: reauthenticationFields,
  ok: json(
    'the codes',
    object({
      codes: {
        type: 'array',
        items: string(undefined, { pattern: '^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$' }),
        minItems: recoveryCodeCount,
        maxItems: recoveryCodeCount,
      },
      created_at: time(),
    }),
  ),
  errors: { 400: ['input.invalid'], 403: ['auth.bad_password', 'auth.bad_passkey'], 503: ['auth.busy'] },
  when: { ...reauthenticationWhen, 'auth.busy': passwordBusy },
} satisfies Operation;

/** GET /api/user/recovery-codes: how many unused codes are left (never the codes). */
export function recoveryCodes(ctx: Ctx) {
  const me = requireUser(ctx);
  return recoveryCodesLeft(ctx.app.db, me.uid);
}
recoveryCodes.doc = {
  id: 'recoveryCodes',
  summary: 'How many recovery codes are left (never the codes)',
  ok: json(
    'the count',
    object({
      remaining: { type: 'integer', minimum: 0, maximum: recoveryCodeCount, description: 'unused codes left' },
      created_at: time('when the set was made; 0 when there is none'),
    }),
  ),
} satisfies Operation;

/**
 * POST /api/auth/recover: a recovery code and a new password. As a reset: the password is set,
 * the code used up, every session and reset link of the account ends, and the caller is logged
 * in. A wrong name and a wrong code answer alike (401 recovery.invalid) and count as failed logins.
 */
export async function recover(ctx: Ctx) {
  const form = await ctx.form();
  const username = textField(form, 'user');
  const code = textField(form, 'code');
  if (!username) throw invalidField('user', fieldMessages.required);
  if (!code) throw invalidField('code', fieldMessages.required);
  // Before the code is checked: a bad new password must not tell whether the code was right.
  const password = newPassword(form);

  const { db, config, clock } = ctx.app;
  const attempt = loginAttempt(ctx, username);
  checkLoginAllowed(attempt);
  const user = findUserByName(db, username);
  const matched = matchRecoveryCode(db, user?.uid, code);
  if (!user || !matched) {
    recordFailedLogin({ ...attempt, now: clock.now() });
    throw new ApiError(401, 'recovery.invalid');
  }
  refuseBanned(ctx, user); // the code stays unused, as a reset link does for a banned account

  const hash = await ctx.app.passwords.hash(
    password,
    config.scryptLogN,
    ctx.signal,
    hashQueueBound(config.limitsFactor),
  );
  const session = db.tx(() => {
    // A concurrent recovery with the same code may have used it while we hashed: only one wins.
    if (!useRecoveryCode(db, user.uid, matched)) throw new ApiError(401, 'recovery.invalid');
    setPasswordHash(db, user.uid, hash);
    afterPasswordChange(db, user.uid, clock.now());
    // A ban that came while we hashed refuses the session, and the throw undoes it all: the code stays unused.
    return startSession(ctx, user.uid, hash, sessionLifetime);
  });
  setSessionCookie(ctx, session, sessionLifetime);
  return { username: user.username };
}
recover.doc = {
  id: 'recover',
  summary: 'Set a new password with a recovery code (logs in, ends every other session and reset link)',
  description:
    "As a reset, in one transaction: the code is used up, the new password stored, every session and outstanding reset link of the account ends (and the private feed's token), and a new session (a day) is made and set as the cookie. A code works once, also when sent twice at once: the writing transaction takes it again, and only one request can.",
  fields: {
    user: requiredField('the username, any letter case'),
    code: requiredField("one of the account's unused recovery codes; dashes, spaces and letter case do not matter"),
    ...newPasswordFields,
  },
  ok: json('the password is set and a session cookie is set', object({ username: string() })),
  errors: {
    400: ['input.invalid', 'auth.invalid'],
    401: ['recovery.invalid'],
    403: ['auth.banned'],
    503: ['auth.busy'],
  },
  when: {
    'auth.invalid':
      '`field` `pass1` or `pass2`: checked first, before the code, so a bad new password tells nothing about the code',
    'input.invalid': '`field` `user` or `code`: missing',
    'recovery.invalid':
      'no such account, or no such unused code: the same answer, compared in constant time; counts as a failed login of the name',
    'auth.banned':
      'the account is banned (also when the ban came while the password was hashed); the code stays unused',
    'rate.limited': loginBucketWhen,
    'auth.busy': passwordBusy,
  },
} satisfies Operation;
