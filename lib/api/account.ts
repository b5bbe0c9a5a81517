import { afterPasswordChange } from '../accounts.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';
import { textField } from '../http/fields.ts';
import { hashPassword, verifyPassword } from '../passwords.ts';
import { findUserById, setPasswordHash } from '../users.ts';
import { newPassword } from './auth.ts';

/** POST /api/user/password: the current password first, then the new ones; every other session and reset link ends. */
export async function changePassword(ctx: Ctx) {
  const session = requireUser(ctx);
  const form = await ctx.form();
  const { db, config, clock } = ctx.app;
  const user = findUserById(db, session.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  // Before the new passwords: a stolen session alone must not change the password.
  if (!(await verifyPassword(textField(form, 'pass'), user.pass_hash, ctx.signal))) throw new ApiError(403, 'auth.bad_password', { field: 'pass' });
  const password = newPassword(form);

  const hash = await hashPassword(password, config.scryptLogN, ctx.signal);
  db.tx(() => {
    setPasswordHash(db, user.uid, hash);
    afterPasswordChange(db, user.uid, clock.now(), session.id);
  });
  return { status: 'ok' };
}
