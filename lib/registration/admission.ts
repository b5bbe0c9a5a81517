import type { Form } from '../http/body.ts';
import type { Ctx } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';
import { textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { createUser } from '../accounts/users.ts';
import { maxPendingApplications } from '../limits/product.ts';
import { applicationText, countPendingApplications, pendingStatus } from './applications.ts';
import { findOpenInvite, useInvite } from './invites.ts';
import { registrationInForce } from './mode.ts';
import { powCost, useSolvedChallenge } from './pow.ts';
import { surgeSwitch } from './surge.ts';

/**
 * What POST /api/auth/newuser asks beyond SPEC's fields, by the mode in force (docs/API.md
 * "Registration"): closed refuses, invite needs a token, approval needs an answer (unless an
 * invite vouches for the newcomer), and proof of work when BOARD_POW is on.
 */
export interface Admission {
  /** The account waits for a moderator. */
  pending: boolean;
  application: string;
  /** The open invite the form carries. */
  invite?: { id: number; uid: number };
}

/**
 * The mode's checks that come before field validation (docs/API.md "Order of checks": 404, then
 * 403, then 400): 404 invite.invalid, 403 auth.registration_closed or auth.invite_required. Field
 * problems (the answer) go into `fields`, reported with the others.
 */
export function admissionOf(ctx: Ctx, form: Form, fields: Record<string, string>): Admission {
  const { db, config, clock } = ctx.app;
  const { mode } = registrationInForce(db, config);
  if (mode === 'closed') throw new ApiError(403, 'auth.registration_closed');
  const token = textField(form, 'invite').trim();
  const invite = token ? findOpenInvite(db, token, clock.now()) : undefined;
  if (token && !invite) throw new ApiError(404, 'invite.invalid');
  if (mode === 'invite' && !invite) throw new ApiError(403, 'auth.invite_required');
  // An invite vouches for the newcomer: no application, no waiting.
  if (mode !== 'approval' || invite) return { pending: false, application: '', invite };
  const application = applicationText(textField(form, 'application'));
  if (application === undefined) fields.application = fieldMessages.application;
  return { pending: true, application: application ?? '', invite };
}

/** Proof of work for a registration when BOARD_POW is on: after the fields, before the name check and the hashing. */
export async function requireRegistrationWork(ctx: Ctx, form: Form): Promise<void> {
  if (powCost(ctx.app.config) === 0) return;
  await useSolvedChallenge(ctx.app.db, textField(form, 'altcha'), ctx.app.clock.now());
}

/**
 * Stores the new account as admitted by the mode in force at its write: in one transaction the
 * mode is read again (a registration in flight when the door closed waits, or is refused), the
 * invite is used up while it still admits (of two registrations with one token one wins; an
 * inviter banned or deleted while the password was hashed admits nobody; the loser answers 404
 * invite.invalid and leaves no account), the queue's bound is checked, and the surge gate may turn an open registration into an
 * application. Returns the uid and whether it waits, or undefined when the name is taken.
 */
export function createAdmittedAccount(
  ctx: Ctx,
  username: string,
  passHash: string,
  admission: Admission,
): { uid: number; pending: boolean } | undefined {
  const { db, clock } = ctx.app;
  const now = clock.now();
  return db.tx(() => {
    // The door may have changed while the password was hashed (a moderator, the surge gate): the
    // account is admitted by the mode in force now, read again inside the writing transaction.
    const { mode } = registrationInForce(db, ctx.app.config);
    if (mode === 'closed') throw new ApiError(403, 'auth.registration_closed');
    if (mode === 'invite' && !admission.invite) throw new ApiError(403, 'auth.invite_required');
    const waitsNow = mode === 'approval' && !admission.invite;
    const pending = admission.pending || waitsNow || (!admission.invite && surgeSwitch(ctx.app, now));
    if (pending && countPendingApplications(db) >= maxPendingApplications) {
      throw new ApiError(429, 'rate.limited', {
        headers: { 'Retry-After': '3600' },
        limit: 'brake/applications',
        message: `Es warten schon ${maxPendingApplications} Anträge auf die Moderation. Bitte versuche es später noch einmal.`,
      });
    }
    // The first account is the operator's: it starts trusted (lib/accounts/trust.ts).
    const first = db.one('SELECT 1 FROM users LIMIT 1') === undefined;
    const uid = createUser(db, username, passHash, now, {
      trustSet: first ? 1 : -1,
      status: pending ? pendingStatus : '',
      application: admission.application,
      invitedBy: admission.invite?.uid ?? 0,
    });
    if (uid === undefined) return undefined;
    if (admission.invite && !useInvite(db, admission.invite.id, uid, now)) throw new ApiError(404, 'invite.invalid');
    return { uid, pending };
  });
}
