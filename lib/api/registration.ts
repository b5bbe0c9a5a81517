import { findUserByName, moderatorRole } from '../accounts/users.ts';
import { trustLevel, setTrustLevel, type TrustLevel } from '../accounts/trust.ts';
import { registrationModes, type RegistrationMode } from '../config.ts';
import { created, requireModerator, requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { moderationReason } from '../moderation/reasons.ts';
import {
  approveApplication,
  maxApplicationsPage,
  pendingStatus,
  readApplications,
  rejectApplication,
} from '../registration/applications.ts';
import {
  countOpenInvites,
  createInvite,
  inviteLifetime,
  inviteTreeOf,
  listInvites,
  maxOpenInvites,
  revokeInvite,
} from '../registration/invites.ts';
import { registrationInForce, setRegistrationMode } from '../registration/mode.ts';
import { newChallenge, powCost, recommendedPowCost } from '../registration/pow.ts';
import { lastSurge, reopenAfterQuiet, surgeThreshold, waveAccounts } from '../registration/surge.ts';

/** The door's endpoints (docs/API.md "Registration"): what to send, invites, the moderators' queue and switches. */

/** GET /api/auth/registration: the mode in force, the question to answer and whether proof of work is needed. */
export function registrationInfo(ctx: Ctx) {
  const { db, config, clock } = ctx.app;
  reopenAfterQuiet(db, config, clock.now());
  const { mode } = registrationInForce(db, config);
  return {
    mode,
    question: mode === 'approval' ? config.registrationQuestion : '',
    pow: powCost(config) > 0,
  };
}

/** GET /api/auth/challenge: a proof-of-work challenge (ALTCHA v2 format), good for 10 minutes and one request. */
export async function challenge(ctx: Ctx) {
  const { db, config, clock } = ctx.app;
  return newChallenge(db, powCost(config) || recommendedPowCost, clock.now());
}

/** The account a moderator's path names, or 404 user.not_found. */
function namedAccount(ctx: Ctx) {
  const user = findUserByName(ctx.app.db, ctx.params.username!);
  if (!user) throw new ApiError(404, 'user.not_found');
  return user;
}

/** GET /api/mod/applications/{page}: the queue, oldest first. */
export function applications(ctx: Ctx) {
  requireModerator(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxApplicationsPage);
  return readApplications(ctx.app.db, page);
}

/** A pending account named in the path: 404 user.not_found, 404 application.not_found when it is not waiting. */
function pendingAccount(ctx: Ctx) {
  const user = namedAccount(ctx);
  const status = ctx.app.db.one<{ status: string }>('SELECT status FROM users WHERE uid = ?', user.uid)?.status;
  if (status !== pendingStatus) throw new ApiError(404, 'application.not_found');
  return user;
}

/** POST /api/mod/applications/{username}/approve */
export async function approve(ctx: Ctx) {
  const mod = requireModerator(ctx);
  await ctx.form();
  const user = pendingAccount(ctx);
  // Decided by someone else meanwhile: the check is repeated in the writing transaction.
  if (!approveApplication(ctx.app.db, user.uid, mod.uid, ctx.app.clock.now()))
    throw new ApiError(404, 'application.not_found');
  return { username: user.username, status: 'approved' };
}

/** POST /api/mod/applications/{username}/reject: `reason` optional (0–500), shown to the applicant at login. */
export async function reject(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const user = pendingAccount(ctx);
  const reason = moderationReason(textField(form, 'reason'));
  if (reason.error === 'long') throw invalidField('reason', fieldMessages.modReasonLong);
  if (!rejectApplication(ctx.app.db, user.uid, reason.text, mod.uid, ctx.app.clock.now()))
    throw new ApiError(404, 'application.not_found');
  return { username: user.username, status: 'rejected' };
}

/** POST /api/user/invites: 201 with the token, once; level 0 cannot invite, nobody holds more than 5 open. */
export async function newInvite(ctx: Ctx) {
  const session = requireUser(ctx);
  await ctx.form();
  const { db, config, clock } = ctx.app;
  const now = clock.now();
  // Why: an invite skips approval, so it is worth only what its inviter's record is worth.
  if (config.limitsFactor > 0 && trustLevel(db, session.uid, now) === 0)
    throw new ApiError(403, 'trust.required', {
      message: 'Neue Konten können noch niemanden einladen: das geht ab Vertrauensstufe 1.',
    });
  const invite = createInvite(db, session.uid, inviteLifetime, now);
  if (!invite)
    throw new ApiError(429, 'rate.limited', {
      headers: { 'Retry-After': '3600' },
      limit: 'brake/invites',
      message: `Du hast schon ${maxOpenInvites} offene Einladungen: höchstens ${maxOpenInvites} auf einmal. Ziehe eine zurück oder warte, bis eine benutzt wird oder abläuft.`,
    });
  return created({ ...invite, url: `${config.origin}/register#${invite.token}` });
}

/** GET /api/user/invites: one's own, newest first (open, used by whom, expired, revoked). */
export function invites(ctx: Ctx) {
  const session = requireUser(ctx);
  const now = ctx.app.clock.now();
  return { invites: listInvites(ctx.app.db, session.uid, now), open: countOpenInvites(ctx.app.db, session.uid, now) };
}

/** POST /api/user/invites/{id}/revoke */
export async function revoke(ctx: Ctx) {
  const session = requireUser(ctx);
  const id = integerParam(ctx.params.id, 'id');
  await ctx.form();
  const outcome = revokeInvite(ctx.app.db, session.uid, id, ctx.app.clock.now());
  if (outcome === 'not_found') throw new ApiError(404, 'invite.not_found');
  if (outcome === 'not_open') throw new ApiError(409, 'invite.not_open');
  return { id, status: 'revoked' };
}

/** GET /api/mod/user/{username}: what moderators see of an account: status, trust level, inviter and invitees. */
export function accountForModerators(ctx: Ctx) {
  requireModerator(ctx);
  const user = namedAccount(ctx);
  const { db, clock } = ctx.app;
  const row = db.one<{ status: string }>('SELECT status FROM users WHERE uid = ?', user.uid)!;
  return {
    username: user.username,
    created_at: user.created_at,
    status: row.status || 'active',
    role: user.role,
    banned_until: user.banned_until,
    trust_level: trustLevel(db, user.uid, clock.now()),
    ...inviteTreeOf(db, user.uid),
  };
}

/** GET /api/mod/registration: the mode in force, who set it, the gate, and the accounts of the last wave. */
export function registrationState(ctx: Ctx) {
  requireModerator(ctx);
  const { db, config, clock } = ctx.app;
  reopenAfterQuiet(db, config, clock.now());
  const state = registrationInForce(db, config);
  const surge = lastSurge(db);
  return {
    mode: state.mode,
    set_by: state.setBy,
    since: state.since,
    configured: config.registration,
    surge: { threshold: surgeThreshold(config), window: config.registrationSurge.windowSeconds },
    ...(surge ? { last_surge: { at: surge.at, accounts: surge.accounts } } : {}),
    wave: surge ? waveAccounts(db, surge) : [],
  };
}

/** A mode from a form field, or 400 input.invalid naming it. */
export function registrationModeField(raw: string): RegistrationMode {
  const mode = raw.trim().toLowerCase();
  if (!(registrationModes as readonly string[]).includes(mode))
    throw invalidField('mode', fieldMessages.registrationMode);
  return mode as RegistrationMode;
}

/** POST /api/mod/registration {mode}: the mode stays until someone changes it. */
export async function setRegistration(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const mode = registrationModeField(textField(form, 'mode'));
  const { db, config, clock } = ctx.app;
  setRegistrationMode(db, config, { mode, setBy: 'moderator' }, mod.uid, clock.now());
  return { mode: registrationInForce(db, config).mode };
}

/** POST /api/mod/user/{username}/trust {level}: 0 or 1; never public, logged for moderators. */
export async function setTrust(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const user = namedAccount(ctx);
  const raw = textField(form, 'level').trim();
  if (raw !== '0' && raw !== '1') throw invalidField('level', fieldMessages.trustLevel);
  const level = Number(raw) as TrustLevel;
  // Moderators are trusted by their role; their level is not the moderation's to lower.
  if (user.role === moderatorRole) throw new ApiError(403, 'mod.target_moderator');
  setTrustLevel(ctx.app.db, user.uid, level, mod.uid, ctx.app.clock.now());
  return { username: user.username, trust_level: level };
}
