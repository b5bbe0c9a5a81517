import type { PasskeyUse } from '../accounts/passkeys.ts';
import { usePasskey } from '../accounts/passkeys.ts';
import type { Session } from '../accounts/sessions.ts';
import { findUserById, type UserWithHash } from '../accounts/users.ts';
import type { Form } from '../http/body.ts';
import type { Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { checkLoginAllowed, recordFailedLogin } from '../limits/login-limits.ts';
import { confirmPassword } from './account.ts';
import { loginAttempt, loginBucketWhen } from './auth.ts';
import { readAssertion, verifyAssertion } from './passkey-assertion.ts';
import { field } from '../openapi/kit.ts';

/**
 * The re-authentication rule (docs/API.md "Re-authentication"): account deletion, a new passkey,
 * deleting a passkey and new recovery codes ask for the password (`pass1`) or a passkey of the
 * account (`passkey`: a signature over a fresh challenge of POST /api/auth/passkey/options). Why:
 * each either ends the account or gives a way into it that outlives the session, so a stolen
 * session alone must not do it. Both ways are held by the login brakes, and a failure counts as
 * a failed login of the account's name.
 */
export interface Confirmation {
  /** The password hash in force when the person confirmed: a password change meanwhile voids it. */
  passHash: string;
  passkey?: PasskeyUse;
}

export const reauthenticationFields = {
  pass1: field("the account's password (or give `passkey`)"),
  passkey: field(
    'instead of the password: a passkey of the account, the JSON of PublicKeyCredential.toJSON() over a challenge of POST /api/auth/passkey/options',
  ),
};

/** When a confirmed request answers what the rule refuses: the confirmation's 403s and the login bucket's 429. */
export const reauthenticationWhen = {
  'auth.bad_password':
    "`field` `pass1`: a wrong or missing password; counts as a failed login of the account's name; also when a password change or a reset replaced it while the request ran (nothing changes)",
  'auth.bad_passkey':
    '`field` `passkey`: a passkey that is not the account\'s or fails its check (docs/API.md "Re-authentication")',
  'rate.limited': loginBucketWhen,
} as const;

const badPasskey = () => new ApiError(403, 'auth.bad_passkey', { field: 'passkey' });

export async function confirmIdentity(ctx: Ctx, user: UserWithHash, form: Form): Promise<Confirmation> {
  const raw = textField(form, 'passkey');
  if (!raw) {
    await confirmPassword(ctx, user, textField(form, 'pass1'), 'pass1');
    return { passHash: user.pass_hash };
  }
  const attempt = loginAttempt(ctx, user.username);
  checkLoginAllowed(attempt);
  const assertion = await readAssertion(ctx, raw, 'passkey');
  const passkey = assertion.passkey?.uid === user.uid ? await verifyAssertion(ctx, assertion) : undefined;
  if (!passkey) {
    recordFailedLogin({ ...attempt, now: ctx.app.clock.now() });
    throw badPasskey();
  }
  return { passHash: user.pass_hash, passkey };
}

/**
 * Inside the transaction of the write it confirmed: the password is still the one in force and the
 * passkey still the account's (its counter stored). Why: the check ran before the transaction, and
 * a password change or the passkey's deletion committed meanwhile must stand.
 */
export function recheckIdentity(ctx: Ctx, session: Session, confirmation: Confirmation): void {
  const { db, clock } = ctx.app;
  const { passkey } = confirmation;
  if (findUserById(db, session.uid)?.pass_hash !== confirmation.passHash)
    throw passkey ? badPasskey() : new ApiError(403, 'auth.bad_password', { field: 'pass1' });
  if (passkey && !usePasskey(db, session.uid, passkey, clock.now())) throw badPasskey();
}
