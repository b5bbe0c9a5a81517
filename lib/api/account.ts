import { maxListedSessions, maxPasswordLength, minPasswordLength } from '../product.ts';
import { afterPasswordChange } from '../account-data/deletion.ts';
import { describeDevice } from '../accounts/devices.ts';
import { clearedSessionCookie } from '../http/cookies.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, recordFailedLogin } from '../limits/login-limits.ts';
import { hashQueueBound } from '../accounts/passwords.ts';
import { deleteOtherSessions, deleteSessionById, listSessionsOfUser, type Session } from '../accounts/sessions.ts';
import { findUserById, setPasswordHash, type UserWithHash } from '../accounts/users.ts';
import { isSecure, loginAttempt, loginBucketWhen, newPassword, newPasswordFields, passwordBusy } from './auth.ts';
import { pushDevicesBySession, withPushDevice } from './push.ts';
import { arrayOf, integer, json, object, ref, requiredField, status, type Operation } from '../openapi/kit.ts';

/** POST /api/user/password: the current password first, then the new ones; every other session and reset link ends. */
export async function changePassword(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, config, clock } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  // Before the new passwords: a stolen session alone must not change the password.
  await confirmPassword(ctx, user, textField(form, 'pass'), 'pass');
  const password = newPassword(form);

  const hash = await ctx.app.passwords.hash(
    password,
    config.scryptLogN,
    ctx.signal,
    hashQueueBound(config.limitsFactor),
  );
  db.tx(() => {
    recheckConfirmed(ctx, session, user.pass_hash, 'pass');
    setPasswordHash(db, user.uid, hash);
    afterPasswordChange(db, user.uid, clock.now(), session.id);
  });
  return { status: 'ok' };
}
changePassword.doc = {
  id: 'changePassword',
  summary: 'Change the own password (ends every other session and reset link)',
  description:
    'In one transaction the new hash is stored, every other live session of the account ends (the calling one stays, its cookie untouched) and every outstanding reset link ends: whoever else knew the old password or held a session or link loses the account with it. The reset runs the same step (`afterPasswordChange` in lib/account-data/deletion.ts). Only the first bad field is named, as at the reset.',
  fields: { pass: requiredField('the current password'), ...newPasswordFields },
  ok: json('changed', status('ok')),
  errors: { 400: ['auth.invalid'], 403: ['auth.bad_password'], 503: ['auth.busy'] },
  when: {
    'auth.bad_password':
      "`field` `pass`: a wrong or missing current password (checked before the new passwords), which counts as a failed login of the account's name; also when another change or a reset replaced it while this one ran",
    'auth.required':
      'also when the calling session was ended, or the account banned, while this one ran: nothing changes',
    'auth.invalid': `\`field\` \`pass1\`: shorter than ${minPasswordLength} or longer than ${maxPasswordLength} characters; \`field\` \`pass2\`: differs from \`pass1\``,
    'rate.limited': `${loginBucketWhen}, before any hashing`,
    'auth.busy': passwordBusy,
  },
} satisfies Operation;

/**
 * The account's current password, asked before a password change or an account deletion: held
 * by the login brakes and, when wrong, counted as a failed login of the account's name, so a
 * stolen session gives no way around them. Wrong: 403 auth.bad_password naming `field`.
 */
export async function confirmPassword(ctx: Ctx, user: UserWithHash, password: string, field: string): Promise<void> {
  const { config, clock } = ctx.app;
  const attempt = loginAttempt(ctx, user.username);
  checkLoginAllowed(attempt);
  if (await ctx.app.passwords.verify(password, user.pass_hash, ctx.signal, hashQueueBound(config.limitsFactor))) return;
  recordFailedLogin({ ...attempt, now: clock.now() });
  throw new ApiError(403, 'auth.bad_password', { field });
}

/**
 * Inside the transaction of a write that confirmed the password: `checkedHash` is still the
 * account's password, else 403 auth.bad_password naming `field`. Why: the check and its hashing ran
 * before the transaction, and a password change committed meanwhile must stand.
 */
export function recheckConfirmed(ctx: Ctx, session: Session, checkedHash: string, field: string): void {
  if (findUserById(ctx.app.db, session.uid)?.pass_hash !== checkedHash)
    throw new ApiError(403, 'auth.bad_password', { field });
}

export function sessionJson(session: Session, currentId: string) {
  const { id, created_at, expires, description } = session;
  return {
    id,
    created_at,
    expires,
    description,
    device: describeDevice(description),
    current: id === currentId ? 1 : 0,
  };
}

export function sessions(ctx: Ctx) {
  const me = requireUser(ctx);
  const devices = pushDevicesBySession(ctx, me.uid);
  return listSessionsOfUser(ctx.app.db, me.uid, ctx.app.clock.now()).map((session) =>
    withPushDevice(sessionJson(session, me.id), devices),
  );
}
sessions.doc = {
  id: 'sessions',
  summary: `The own live sessions, newest first (at most ${maxListedSessions})`,
  description: `Newest first by \`created_at\`, expired sessions left out, at most the newest ${maxListedSessions} (revoke-others ends the rest too).`,
  ok: json('the sessions', arrayOf(ref('SessionListItem'), maxListedSessions)),
} satisfies Operation;

export async function revokeSession(ctx: Ctx<'id'>) {
  const me = requireUser(ctx);
  await ctx.form();
  const id = ctx.params.id;
  const { db, clock } = ctx.app;
  // The write checks the session again (ctx.app.db): an ended session ends no other, however slowly its body came.
  // Another account's id answers like an unknown one: ids are not to be probed.
  if (!deleteSessionById(db, me.uid, id, clock.now())) throw new ApiError(404, 'session.not_found');
  if (id === me.id) ctx.setCookie(clearedSessionCookie(isSecure(ctx)));
  return { status: 'ok' };
}
revokeSession.doc = {
  id: 'revokeSession',
  summary: 'End one session (the calling one: a logout)',
  description:
    'The session ends at once; when it is the calling one, the cookie is cleared as well. No fields (a body is read but ignored).',
  ok: json('ended', status('ok')),
  errors: { 404: ['session.not_found'] },
  when: {
    'session.not_found':
      "no live session of this account has that id: unknown, expired, or another account's (the same answer, so ids cannot be probed)",
    'auth.required': 'also when the calling session was ended while its body came: an ended session ends no other',
  },
} satisfies Operation;

export async function revokeOtherSessions(ctx: Ctx) {
  const me = requireUser(ctx);
  await ctx.form();
  const { db, clock } = ctx.app;
  return { count: deleteOtherSessions(db, me.uid, me.id, clock.now()) };
}
revokeOtherSessions.doc = {
  id: 'revokeOtherSessions',
  summary: 'End every session but the calling one',
  description:
    "No fields. The calling session stays. A login that completes afterwards with the account's password stands: ending sessions is no lockout, a password change is (docs/SECURITY.md).",
  ok: json('how many ended (0 when there were none)', object({ count: integer() })),
  when: { 'auth.required': 'also when the calling session was ended while its body came' },
} satisfies Operation;
