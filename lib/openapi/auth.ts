import { constant, field, integer, json, object, ref, requiredField, status, string, type Area } from './kit.ts';

/** docs/API.md "Auth": the operations of /api/auth. */

const username = object({ username: string('the name as stored, after normalising') });
/** A new password, as registration, reset and password change take it. */
export const newPasswords = {
  pass1: requiredField('the new password, 10–1024 characters', { type: 'string', minLength: 10, maxLength: 1024 }),
  pass2: requiredField('equal to pass1'),
};

/** A login's `timeout` field (a password or a passkey login). */
export const loginTimeout = field(
  'session lifetime in whole seconds, 60–31536000; default 86400',
  integer(undefined, { minimum: 60, maximum: 31_536_000 }),
);

export const auth: Area = {
  tag: 'Auth',
  description:
    'Login, registration, logout, the session and password resets. The session travels in the cookie `session`.',
  operations: {
    'POST /api/auth/login': {
      id: 'login',
      summary: 'Log in (sets the session cookie)',
      description: 'With a valid session already: 200 `already_logged_in`, no new session, the body is not read.',
      fields: {
        user: requiredField('the username, any letter case'),
        pass: requiredField('the password'),
        timeout: loginTimeout,
      },
      ok: json('logged in, or already logged in', status('ok', 'already_logged_in')),
      errors: {
        400: ['input.invalid'],
        401: ['auth.bad_credentials'],
        403: ['auth.banned'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
    'POST /api/auth/newuser': {
      id: 'register',
      summary: 'Register (does not log in)',
      fields: {
        user: requiredField('3–32 letters, digits, `.`, `_`, space and `-`, normalised', {
          type: 'string',
          minLength: 3,
          maxLength: 32,
        }),
        ...newPasswords,
      },
      ok: json('the account exists', username, 201),
      errors: { 400: ['auth.invalid'], 409: ['user.name_taken'], 429: ['rate.limited'], 503: ['auth.busy'] },
    },
    'POST /api/auth/logout': {
      id: 'logout',
      summary: 'Log out (clears the cookie, also without a session)',
      ok: json('logged out', status('ok')),
    },
    'GET /api/auth/sessioninfo': {
      id: 'sessionInfo',
      summary: 'The calling session',
      ok: json('the session', ref('Session')),
    },
    'GET /api/auth/whoami': {
      id: 'whoami',
      summary: 'Who is calling: the own profile, or `{uid: 0}` without a session (always 200)',
      ok: json('the own profile, or uid 0', { oneOf: [ref('OwnUser'), object({ uid: constant(0) })] }),
    },
    'POST /api/auth/reset/check': {
      id: 'checkReset',
      summary: 'Check a reset token (the link stays valid)',
      fields: { token: requiredField('the part after # in the reset link') },
      ok: json('the token is valid for this user', username),
      errors: { 403: ['auth.banned'], 404: ['reset.invalid'], 429: ['rate.limited'] },
    },
    'POST /api/auth/reset': {
      id: 'reset',
      summary: 'Set a new password with a reset token (logs in, ends every other session)',
      fields: { token: requiredField('the part after # in the reset link'), ...newPasswords },
      ok: json('the password is set and a session cookie is set', username),
      errors: {
        400: ['auth.invalid'],
        403: ['auth.banned'],
        404: ['reset.invalid'],
        429: ['rate.limited'],
        503: ['auth.busy'],
      },
    },
  },
};
