import { ApiError } from '../errors.ts';
import { fieldMessages } from '../messages.ts';
import { createUser, isLocalAccount } from '../accounts/users.ts';
import { maxPendingApplications } from '../product.ts';
import { applicationText, countPendingApplications, pendingStatus } from './applications.ts';
import { findOpenInvite, useInvite } from './invites.ts';
import { registrationInForce } from './mode.ts';
import { powCost, useSolvedChallenge } from './pow.ts';
import { surgeSwitch } from './surge.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Notifier } from '../outgoing/operator-webhook.ts';

/**
 * What POST /api/auth/newuser asks beyond SPEC's fields, by the mode in force (docs/API.md
 * "Registration"): closed refuses, invite needs a token, approval needs an answer (unless an
 * invite vouches for the newcomer), and proof of work when BOARD_POW is on.
 */
export interface Admission {
  pending: boolean;
  application: string;
  invite?: { id: number; uid: number };
}

export interface AdmissionDeps {
  db: Db;
  config: Config;
  clock: Clock;
  notifier?: Pick<Notifier, 'send'>;
}

export interface AdmissionForm {
  invite: string;
  application: string;
}

/**
 * The mode's checks that come before field validation (docs/API.md "Order of checks": 404, then
 * 403, then 400): 404 invite.invalid, 403 auth.registration_closed or auth.invite_required. Field
 * problems (the answer) go into `fields`, reported with the others.
 */
export function admissionOf(app: AdmissionDeps, form: AdmissionForm, fields: Record<string, string>): Admission {
  const { db, config, clock } = app;
  const { mode } = registrationInForce(db, config);
  if (mode === 'closed') throw new ApiError(403, 'auth.registration_closed');
  const token = form.invite;
  const invite = token ? findOpenInvite(db, token, clock.now()) : undefined;
  if (token && !invite) throw new ApiError(404, 'invite.invalid');
  if (mode === 'invite' && !invite) throw new ApiError(403, 'auth.invite_required');
  // An invite vouches for the newcomer: no application, no waiting.
  if (mode !== 'approval' || invite) return { pending: false, application: '', invite };
  const application = applicationText(form.application);
  if (application === undefined) fields.application = fieldMessages.application;
  return { pending: true, application: application ?? '', invite };
}

/** Proof of work for a registration when BOARD_POW is on: after the fields, before the name check and the hashing. */
export async function requireRegistrationWork(app: AdmissionDeps, solution: string): Promise<void> {
  if (powCost(app.config) === 0) return;
  await useSolvedChallenge(app.db, solution, app.clock.now());
}

/**
 * The one way an account comes into being: a registration through the door, or `board-admin
 * user-add` ('operator': any mode, trusted). A registration's transaction reads the mode again,
 * uses up the invite only while it admits, and checks the queue and surge gate. A taken name admits
 * nobody.
 */
export function createAdmittedAccount(
  app: AdmissionDeps,
  username: string,
  passHash: string,
  admission: Admission | 'operator',
): { uid: number; pending: boolean } | undefined {
  const { db, clock } = app;
  const now = clock.now();
  return db.tx(() => {
    const door = admission === 'operator' ? undefined : admission;
    const pending = door ? doorAtWrite(app, door, now) : false;
    const first = db.one(`SELECT 1 FROM users WHERE ${isLocalAccount} LIMIT 1`) === undefined;
    const uid = createUser(db, username, passHash, now, {
      trustSet: first || !door ? 1 : -1,
      status: pending ? pendingStatus : '',
      application: door?.application ?? '',
      invitedBy: door?.invite?.uid ?? 0,
    });
    if (uid === undefined) return undefined;
    if (door?.invite && !useInvite(db, door.invite.id, uid, now)) throw new ApiError(404, 'invite.invalid');
    return { uid, pending };
  });
}

/**
 * The door as it stands inside the writing transaction: the mode may have changed while the
 * password was hashed (a moderator, the surge gate), so it is read again. Whether the account waits.
 */
function doorAtWrite(app: AdmissionDeps, admission: Admission, now: number): boolean {
  const { mode } = registrationInForce(app.db, app.config);
  if (mode === 'closed') throw new ApiError(403, 'auth.registration_closed');
  if (mode === 'invite' && !admission.invite) throw new ApiError(403, 'auth.invite_required');
  const waitsNow = mode === 'approval' && !admission.invite;
  const pending = admission.pending || waitsNow || (!admission.invite && surgeSwitch(app, now));
  if (pending && countPendingApplications(app.db) >= maxPendingApplications) {
    throw new ApiError(429, 'rate.limited', {
      headers: { 'Retry-After': '3600' },
      limit: 'brake/applications',
      message: `Es warten schon ${maxPendingApplications} Anträge auf die Moderation. Bitte versuche es später noch einmal.`,
    });
  }
  return pending;
}
