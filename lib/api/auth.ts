import { afterPasswordChange } from '../account-data/deletion.ts';
import type { Form } from '../http/body.ts';
import { clearedSessionCookie, sessionCookie } from '../http/cookies.ts';
import { created, Reply, requireUser, type Ctx } from '../http/context.ts';
import { admissionFields, altchaField, pendingAnswer } from '../openapi/registration.ts';
import { admissionOf, createAdmittedAccount, requireRegistrationWork } from '../registration/admission.ts';
import { reopenAfterQuiet } from '../registration/surge.ts';
import { ApiError, invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, loginPressure, recordFailedLogin, type LoginAttempt } from '../limits/login-limits.ts';
import { loginNeedsWork, useSolvedChallenge } from '../registration/pow.ts';
import { fieldMessages } from '../messages.ts';
import {
  defaultLoginSeconds,
  maxLoginSeconds,
  maxPasswordLength,
  maxSessionDescriptionLength,
  resetLinkLifetimeSeconds,
  maxUsernameLength,
  minLoginSeconds,
  minPasswordLength,
  minUsernameLength,
} from '../product.ts';
import { bannedMessage } from '../moderation/accounts.ts';
import { activeBanUntil } from '../accounts/bans.ts';
import { hashQueueBound, registrationQueueBound } from '../accounts/passwords.ts';
import { consumeResetLink, findResetLink } from '../accounts/reset-links.ts';
import type { PasskeyUse } from '../accounts/passkeys.ts';
import { createSession, deleteSessionByToken } from '../accounts/sessions.ts';
import {
  findUserById,
  findUserByName,
  remoteStatus,
  isNameTaken,
  isValidUsername,
  setPasswordHash,
  type User,
} from '../accounts/users.ts';
import { field, integer, json, object, ref, requiredField, status, string, type Operation } from '../openapi/kit.ts';
import { normaliseUsername } from '../text/usernames.ts';
import { codePoints } from '../text/code-points.ts';

const day = 86_400;

const usernameAnswer = object({ username: string('the name as stored, after normalising') });
export const newPasswordFields = {
  pass1: requiredField(`the new password, ${minPasswordLength}–${maxPasswordLength} characters`, {
    type: 'string',
    minLength: minPasswordLength,
    maxLength: maxPasswordLength,
  }),
  pass2: requiredField('equal to pass1'),
};

/** When a request that checks a credential answers 429: the `login` group and the login brakes (docs/API.md "Rate limits"). */
export const loginBucketWhen =
  'group `login` (SPEC\'s 20 a minute per address), or the login brakes (docs/API.md "Rate limits")';

/** When a request that hashes a password answers 503 auth.busy (docs/API.md "Rate limits"). */
export const passwordBusy = 'the hashing line is full, or the request waited 5 s in it (`Retry-After: 5`)';

export const loginTimeoutField = field(
  `session lifetime in whole seconds, ${minLoginSeconds}–${maxLoginSeconds}; default ${defaultLoginSeconds}`,
  integer(undefined, { minimum: minLoginSeconds, maximum: maxLoginSeconds }),
);

export async function login(ctx: Ctx) {
  const form = await ctx.form();
  if (ctx.session()) return { status: 'already_logged_in' };
  const timeout = parseTimeout(form.fields.get('timeout'));
  const username = textField(form, 'user');
  const password = textField(form, 'pass');
  if (!username) throw invalidField('user', fieldMessages.required);
  if (!password) throw invalidField('pass', fieldMessages.required);

  const { config, clock } = ctx.app;
  const attempt = loginAttempt(ctx, username);
  checkLoginAllowed(attempt);
  if (loginNeedsWork(config, loginPressure(attempt)))
    await useSolvedChallenge(ctx.app.db, textField(form, 'altcha'), clock.now());
  const found = findUserByName(ctx.app.db, username);
  // An author on another server has no password here: its name is no login. Unknown names spend the
  // same hashing work as wrong passwords, so timing reveals nothing.
  const user = found?.status === remoteStatus ? undefined : found;
  const stored = user?.pass_hash ?? (await ctx.app.passwords.dummyHash(config.scryptLogN));
  const matches = await ctx.app.passwords.verify(password, stored, ctx.signal, hashQueueBound(config.limitsFactor));
  if (!user || !matches) {
    recordFailedLogin({ ...attempt, now: clock.now() });
    throw new ApiError(401, 'auth.bad_credentials');
  }
  // Only after the password (a wrong one stays 401, so a ban reveals nothing to a guesser), and
  // against the account as it is now: a ban or a new password may have come while we hashed.
  setSessionCookie(ctx, startSession(ctx, user.uid, user.pass_hash, timeout), timeout);
  return { status: 'ok' };
}
login.doc = {
  id: 'login',
  summary: 'Log in (sets the session cookie)',
  description: `The cookie's Max-Age is \`timeout\`; the session's \`description\` is the request's User-Agent (first ${maxSessionDescriptionLength} characters), and \`last_login\` is set. With a valid session already: 200 \`already_logged_in\`, no new session, the body is not read.`,
  fields: {
    user: requiredField('the username: any letter case, spaces normalised as at registration'),
    pass: requiredField('the password'),
    timeout: loginTimeoutField,
    altcha: altchaField,
  },
  ok: json('logged in, or already logged in', status('ok', 'already_logged_in')),
  errors: {
    400: ['input.invalid', 'pow.invalid'],
    401: ['auth.bad_credentials'],
    403: ['auth.banned', 'auth.pending', 'auth.rejected'],
    429: ['rate.limited'],
    503: ['auth.busy'],
  },
  when: {
    'input.invalid': `\`timeout\` not an integer or outside ${minLoginSeconds}–${maxLoginSeconds}; \`user\` or \`pass\` missing or empty`,
    'pow.invalid':
      'the name is under failed-login pressure (unless BOARD_LOGIN_POW=0): the login needs `altcha`, checked before the password (docs/API.md "Proof of work")',
    'auth.bad_credentials':
      'unknown name or wrong password (the same answer and the same hashing work for both); also when the password was changed or reset while the login checked it',
    'auth.banned':
      'the right password of a banned account, also when the ban came while the login checked the password; the message says until when, `banned_until` is next to `error`',
    'auth.pending': 'the right password of an account whose application waits (docs/API.md "Registration")',
    'auth.rejected': 'the right password of an account whose application was rejected; `reason` is next to `error`',
    'rate.limited':
      'SPEC\'s 20 a minute per address; the IPv6 site (/48) budget; or, while the name or the board has too many failed logins, from an address that failed one itself (docs/API.md "Rate limits")',
    'auth.busy': passwordBusy,
  },
} satisfies Operation;

/**
 * POST /api/auth/newuser: answers 201 and does not log in; in approval mode (or after the surge
 * gate closed the door) 202 `{username, status: "pending"}` (docs/API.md "Registration").
 */
export async function register(ctx: Ctx) {
  const form = await ctx.form();
  reopenAfterQuiet(ctx.app.db, ctx.app.config, ctx.app.clock.now());
  const fields: Record<string, string> = {};
  const admission = admissionOf(
    ctx.app,
    { invite: textField(form, 'invite').trim(), application: textField(form, 'application') },
    fields,
  );
  const username = normaliseUsername(textField(form, 'user'));
  const password = textField(form, 'pass1');
  if (!isValidUsername(username)) fields.user = fieldMessages.username;
  const passwordProblem = checkPassword(password);
  if (passwordProblem) fields.pass1 = passwordProblem;
  if (textField(form, 'pass2') !== password) fields.pass2 = fieldMessages.passwordMismatch;
  if (Object.keys(fields).length) throw new ApiError(400, 'auth.invalid', { fields });
  await requireRegistrationWork(ctx.app, textField(form, 'altcha'));

  // The name is checked before the hashing work (createUser checks again in its transaction), and the
  // hash waits in the registrations' own line: a flood of them never takes the hashing line from members.
  if (isNameTaken(ctx.app.db, username)) throw new ApiError(409, 'user.name_taken', { field: 'user' });
  const { limitsFactor } = ctx.app.config;
  const hash = await ctx.app.passwords.hash(
    password,
    ctx.app.config.scryptLogN,
    ctx.signal,
    hashQueueBound(limitsFactor),
    {
      bound: registrationQueueBound(limitsFactor),
    },
  );
  const account = createAdmittedAccount(ctx.app, username, hash, admission);
  if (account === undefined) throw new ApiError(409, 'user.name_taken', { field: 'user' });
  if (!account.pending) return created({ username });
  ctx.app.notifier?.send({ about: 'application' });
  return new Reply(202, { username, status: 'pending' });
}
register.doc = {
  id: 'register',
  summary: 'Register (does not log in: no cookie)',
  description:
    'Which fields the registration mode and BOARD_POW ask for, and the order of their checks: docs/API.md "Registering in each mode".',
  fields: {
    user: requiredField(
      `normalised (NFC, the bidi controls U+202A–202E and U+2066–2069 dropped, trimmed, inner whitespace collapsed to one space), then ${minUsernameLength}–${maxUsernameLength} characters of letters, combining marks, decimal digits, \`.\`, \`_\`, space and \`-\`, at least one of them a letter or digit, and no default-ignorable code point (U+034F, variation selectors, Hangul fillers such as U+3164 and U+115F …)`,
      {
        type: 'string',
        minLength: minUsernameLength,
        maxLength: maxUsernameLength,
      },
    ),
    ...newPasswordFields,
    ...admissionFields,
  },
  ok: json('the account exists', usernameAnswer, 201),
  more: [pendingAnswer],
  errors: {
    400: ['auth.invalid', 'pow.invalid'],
    403: ['auth.registration_closed', 'auth.invite_required'],
    404: ['invite.invalid'],
    409: ['user.name_taken'],
    429: ['rate.limited'],
    503: ['auth.busy'],
  },
  when: {
    'auth.invalid':
      'any field invalid: `fields` names every bad field at once (`user`, `pass1`, `pass2`, `application`); a taken name is then not checked',
    'pow.invalid':
      'BOARD_POW is on and `altcha` is not a good solved challenge (`error.fields.altcha`; docs/API.md "Proof of work")',
    'auth.registration_closed': 'the registration mode is `closed`',
    'auth.invite_required': 'invite mode, and no `invite`',
    'invite.invalid':
      'an `invite` that is unknown, used, revoked or expired, or whose inviter has since been banned or deleted (in any mode but closed)',
    'user.name_taken':
      'all fields valid and the name is taken in any letter case, or looks like a taken name (the same Unicode TR39 confusable skeleton: "alice" and "аlice" with a Cyrillic а)',
    'rate.limited':
      "SPEC's 20 a minute, or 50 a day per address; in approval mode also when 1000 applications wait (the message says so)",
    'auth.busy':
      'the registrations\' line is full or the registration waited 5 s in it (the message says so), or the hashing line is full (`Retry-After: 5`; docs/API.md "Rate limits")',
  },
} satisfies Operation;

export async function logout(ctx: Ctx) {
  await ctx.form();
  const token = ctx.cookies.session;
  if (token) deleteSessionByToken(ctx.app.db, token);
  ctx.setCookie(clearedSessionCookie(isSecure(ctx)));
  return { status: 'ok' };
}
logout.doc = {
  id: 'logout',
  summary: 'Log out (clears the cookie, also without a session)',
  description: 'The session is deleted and the cookie cleared (`session=; Max-Age=0`). Any body is ignored.',
  ok: json('logged out', status('ok')),
} satisfies Operation;

export function sessionInfo(ctx: Ctx) {
  const { uid, created_at, expires, description } = requireUser(ctx);
  return { uid, created_at, expires, description };
}
sessionInfo.doc = {
  id: 'sessionInfo',
  summary: 'The calling session',
  ok: json('the session', ref('Session')),
} satisfies Operation;

export async function checkReset(ctx: Ctx) {
  const form = await ctx.form();
  const link = findResetLink(ctx.app.db, textField(form, 'token'), ctx.app.clock.now());
  const user = link && findUserById(ctx.app.db, link.uid);
  if (!user) throw new ApiError(404, 'reset.invalid');
  refuseBanned(ctx, user); // the reset page can say so before anyone types a password
  return { username: user.username };
}
checkReset.doc = {
  id: 'checkReset',
  summary: 'Check a reset token (the link stays valid)',
  fields: { token: requiredField('the part after # in the reset link') },
  ok: json('the token is valid for this user', usernameAnswer),
  errors: { 403: ['auth.banned'], 404: ['reset.invalid'], 429: ['rate.limited'] },
  when: {
    'reset.invalid': `token missing, unknown, expired (${resetLinkLifetimeSeconds / 3600} hours), used, or superseded by a newer link`,
    'auth.banned': "the link's account is banned (the link stays valid)",
  },
} satisfies Operation;

export async function reset(ctx: Ctx) {
  const form = await ctx.form();
  const token = textField(form, 'token');
  const link = findResetLink(ctx.app.db, token, ctx.app.clock.now());
  const user = link && findUserById(ctx.app.db, link.uid);
  if (!user) throw new ApiError(404, 'reset.invalid');
  refuseBanned(ctx, user); // the link stays unused, so it still works if the ban ends within its 72 hours

  const password = newPassword(form);

  const hash = await ctx.app.passwords.hash(
    password,
    ctx.app.config.scryptLogN,
    ctx.signal,
    hashQueueBound(ctx.app.config.limitsFactor),
  );
  const { db } = ctx.app;
  const session = db.tx(() => {
    // A concurrent reset may have used the link while we hashed: only one wins.
    if (!consumeResetLink(db, token)) throw new ApiError(404, 'reset.invalid');
    setPasswordHash(db, user.uid, hash);
    afterPasswordChange(db, user.uid, ctx.app.clock.now());
    // A ban that came while we hashed refuses the session, and the throw undoes the reset with
    // it: the password stays, the link stays unused (as for a reset refused before hashing).
    return startSession(ctx, user.uid, hash, day);
  });
  setSessionCookie(ctx, session, day);
  return { username: user.username };
}
reset.doc = {
  id: 'reset',
  summary: 'Set a new password with a reset token (logs in, ends every other session)',
  description: `The password is set, the link used up, and every session and every other reset link of the user deleted: the same step as a password change (docs/API.md "POST /api/user/password"). A new session (lifetime ${day} s) is created and set as the cookie; \`last_login\` is set. Only the first bad field is named (\`fields\` is registration's alone).`,
  fields: { token: requiredField('the part after # in the reset link'), ...newPasswordFields },
  ok: json('the password is set and a session cookie is set', usernameAnswer),
  errors: {
    400: ['auth.invalid'],
    403: ['auth.banned', 'auth.pending', 'auth.rejected'],
    404: ['reset.invalid'],
    429: ['rate.limited'],
    503: ['auth.busy'],
  },
  when: {
    'reset.invalid':
      'as for reset/check (checked before the passwords); also when a concurrent reset used the link first',
    'auth.banned':
      "the link's account is banned: checked before the passwords, and again when the new password is stored (a ban that came meanwhile undoes the whole reset); the link stays unused",
    'auth.invalid': `\`field\` \`pass1\`: shorter than ${minPasswordLength} or longer than ${maxPasswordLength} characters; \`field\` \`pass2\`: differs from \`pass1\``,
    'auth.busy': passwordBusy,
  },
} satisfies Operation;

export function loginAttempt(ctx: Ctx, username: string): LoginAttempt {
  const { config, limits, clock } = ctx.app;
  return { store: limits, factor: config.limitsFactor, ip: ctx.ip, username, now: clock.now() };
}

export function refuseBanned(ctx: Ctx, user: User): void {
  const until = activeBanUntil(user, ctx.app.clock.now());
  if (until) throw bannedError(until);
}

function bannedError(until: number): ApiError {
  return new ApiError(403, 'auth.banned', { message: bannedMessage(until), extra: { banned_until: until } });
}

/**
 * A session for the account whose password hash `passHash` was checked: its cookie value, or the
 * answer as if the request had started after what came in between (403 auth.banned, auth.pending or
 * auth.rejected; 401 auth.bad_credentials after a new password or when gone; 401 passkey.failed).
 */
export function startSession(ctx: Ctx, uid: number, passHash: string, lifetime: number, passkey?: PasskeyUse): string {
  const description = ctx.req.headers['user-agent'] ?? '';
  const session = createSession(ctx.app.db, { uid, passHash, passkey, lifetime, description }, ctx.app.clock.now());
  if ('token' in session) return session.token;
  if (session.refused === 'banned') throw bannedError(session.until);
  if (session.refused === 'pending') throw new ApiError(403, 'auth.pending');
  if (session.refused === 'rejected') throw new ApiError(403, 'auth.rejected', { extra: { reason: session.reason } });
  throw new ApiError(401, passkey ? 'passkey.failed' : 'auth.bad_credentials');
}

export function setSessionCookie(ctx: Ctx, token: string, lifetime: number): void {
  ctx.setCookie(sessionCookie(token, { maxAge: lifetime, secure: isSecure(ctx) }));
}

export function isSecure(ctx: Ctx): boolean {
  return ctx.app.config.origin.startsWith('https:');
}

export function parseTimeout(raw: string | undefined): number {
  if (raw === undefined || raw === '') return defaultLoginSeconds;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= minLoginSeconds && value <= maxLoginSeconds)) {
    throw invalidField('timeout', fieldMessages.loginTimeout);
  }
  return value;
}

export function newPassword(form: Form): string {
  const password = textField(form, 'pass1');
  const problem = checkPassword(password);
  if (problem) throw new ApiError(400, 'auth.invalid', { field: 'pass1', message: problem });
  if (textField(form, 'pass2') !== password)
    throw new ApiError(400, 'auth.invalid', { field: 'pass2', message: fieldMessages.passwordMismatch });
  return password;
}

function checkPassword(password: string): string | undefined {
  const length = codePoints(password);
  if (length < minPasswordLength) return fieldMessages.passwordShort;
  if (length > maxPasswordLength) return fieldMessages.passwordLong;
  return undefined;
}
