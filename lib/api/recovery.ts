import { afterPasswordChange } from '../accounts/deletion.ts';
import { hashQueueBound } from '../accounts/passwords.ts';
import {
  matchRecoveryCode,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  useRecoveryCode,
} from '../accounts/recovery-codes.ts';
import { findUserById, findUserByName, setPasswordHash } from '../accounts/users.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, recordFailedLogin } from '../limits/login-limits.ts';
import { fieldMessages } from '../messages.ts';
import { loginAttempt, newPassword, refuseBanned, setSessionCookie, startSession } from './auth.ts';
import { confirmIdentity, recheckIdentity } from './reauth.ts';

/** A recovery logs in for a day, as a reset does. */
const sessionLifetime = 86_400;

/** POST /api/user/recovery-codes: re-authentication, then ten new codes replace the old ones; shown this once. */
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

/** GET /api/user/recovery-codes: how many unused codes are left (never the codes). */
export function recoveryCodes(ctx: Ctx) {
  const me = requireUser(ctx);
  return recoveryCodesLeft(ctx.app.db, me.uid);
}

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
