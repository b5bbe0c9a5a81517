import { findUserByName, moderatorRole } from '../accounts/users.ts';
import { trustLevel, setTrustLevel, type TrustLevel } from '../accounts/trust.ts';
import { registrationModes, type RegistrationMode } from '../config.ts';
import { created, requireModerator, requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { scaledLimit, waitText } from '../limits/rate-limit.ts';
import { fieldMessages } from '../messages.ts';
import { moderationReason } from '../modlog/reasons.ts';
import {
  applicationsPageSize,
  inviteLifetimeSeconds,
  inviteWeekSeconds,
  maxApplicationsPage,
  maxInvitesPerWeek,
  maxModReasonLength,
  maxOpenInvites,
  maxPendingApplications,
} from '../product.ts';
import {
  approveApplication,
  pendingStatus,
  readApplications,
  rejectApplication,
  rejectApplicationsBetween,
} from '../registration/applications.ts';
import {
  countOpenInvites,
  createInvite,
  inviteTreeOf,
  listInvites,
  nextInviteAt,
  revokeInvite,
} from '../registration/invites.ts';
import {
  arrayOf,
  field,
  integer,
  json,
  object,
  oneOfValues,
  ref,
  requiredField,
  string,
  type Operation,
} from '../openapi/kit.ts';
import { usernameStatus } from '../openapi/registration.ts';
import { registrationInForce, setRegistrationMode } from '../registration/mode.ts';
import { treeBanTargets } from '../moderation/accounts.ts';
import { challengeCost, newChallenge, powCost } from '../registration/pow.ts';
import { lastSurge, reopenAfterQuiet, surgeThreshold, waveAccounts } from '../registration/surge.ts';

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
registrationInfo.doc = {
  id: 'registrationInfo',
  summary: 'What a registration needs now: the mode in force, the question to answer, proof of work',
  ok: json('the mode in force', ref('RegistrationInfo')),
} satisfies Operation;

export async function challenge(ctx: Ctx) {
  const { db, config, clock } = ctx.app;
  return newChallenge(db, challengeCost(config), clock.now());
}
challenge.doc = {
  id: 'powChallenge',
  summary: 'A proof-of-work challenge (ALTCHA v2), good for 10 minutes and one request',
  description:
    'Find the counter (from 0 up) whose PBKDF2 key starts with `keyPrefix`; send base64 of JSON `{challenge, solution: {counter, derivedKey}}` as `altcha`.',
  ok: json('a signed challenge', ref('PowChallenge')),
} satisfies Operation;

const applicationWhen = {
  'user.not_found': 'unknown user',
  'application.not_found':
    'the account has no waiting application (decided meanwhile: the check is repeated in the writing transaction)',
} as const;

function namedAccount(ctx: Ctx<'username'>) {
  const user = findUserByName(ctx.app.db, ctx.params.username);
  if (!user) throw new ApiError(404, 'user.not_found');
  return user;
}

export function applications(ctx: Ctx<'page'>) {
  requireModerator(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxApplicationsPage);
  return readApplications(ctx.app.db, page);
}
applications.doc = {
  id: 'applications',
  summary: `The applications waiting, oldest first, ${applicationsPageSize} a page`,
  ok: json('a page of applications', arrayOf(ref('Application'), applicationsPageSize)),
} satisfies Operation;

function pendingAccount(ctx: Ctx<'username'>) {
  const user = namedAccount(ctx);
  if (user.status !== pendingStatus) throw new ApiError(404, 'application.not_found');
  return user;
}

export async function approve(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  await ctx.form();
  const user = pendingAccount(ctx);
  // Decided by someone else meanwhile: the check is repeated in the writing transaction.
  if (!approveApplication(ctx.app.db, user.uid, mod.uid, ctx.app.clock.now()))
    throw new ApiError(404, 'application.not_found');
  return { username: user.username, status: 'approved' };
}
approve.doc = {
  id: 'approveApplication',
  summary: 'Approve an application: the account can log in',
  ok: json('approved', usernameStatus('approved')),
  errors: { 404: ['user.not_found', 'application.not_found'] },
  when: applicationWhen,
} satisfies Operation;

export async function reject(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const user = pendingAccount(ctx);
  const reason = rejectReasonField(form);
  if (!rejectApplication(ctx.app.db, user.uid, reason, mod.uid, ctx.app.clock.now()))
    throw new ApiError(404, 'application.not_found');
  return { username: user.username, status: 'rejected' };
}
reject.doc = {
  id: 'rejectApplication',
  summary: 'Reject an application; the applicant sees `reason` at login for 30 days, then the account goes',
  fields: {
    reason: field(
      `optional, at most ${maxModReasonLength} characters; shown to the applicant only (the public log names the account, not the reason)`,
      { type: 'string', maxLength: maxModReasonLength },
    ),
  },
  ok: json('rejected', usernameStatus('rejected')),
  errors: { 400: ['input.invalid'], 404: ['user.not_found', 'application.not_found'] },
  when: { ...applicationWhen, 'input.invalid': `\`field\` \`reason\`: over ${maxModReasonLength} characters` },
} satisfies Operation;

function rejectReasonField(form: Awaited<ReturnType<Ctx['form']>>): string {
  const reason = moderationReason(textField(form, 'reason'));
  if (reason.error === 'long') throw invalidField('reason', fieldMessages.modReasonLong);
  return reason.text;
}

export async function rejectBetween(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const from = integerParam(textField(form, 'from'), 'from');
  const to = integerParam(textField(form, 'to'), 'to', from);
  const reason = rejectReasonField(form);
  const rejected = rejectApplicationsBetween(ctx.app.db, from, to, reason, mod.uid, ctx.app.clock.now());
  return { rejected: rejected.length, usernames: rejected };
}
rejectBetween.doc = {
  id: 'rejectApplicationsBetween',
  summary: `Reject every application stored from \`from\` to \`to\` (at most ${maxPendingApplications}): a wave in one step`,
  description:
    'Both times included; the applications of that span are rejected in one transaction, each named in the public log as a single rejection is.',
  fields: {
    from: requiredField('Unix seconds: the first registration time to reject (as `created_at` in the queue)'),
    to: requiredField('Unix seconds: the last registration time to reject, at least `from`'),
    reason: field(`optional, at most ${maxModReasonLength} characters; every applicant sees it at login`, {
      type: 'string',
      maxLength: maxModReasonLength,
    }),
  },
  ok: json(
    'how many were rejected, and who',
    object({ rejected: integer(), usernames: arrayOf(string(), maxPendingApplications) }),
  ),
  errors: { 400: ['input.invalid'] },
  when: { 'input.invalid': '`field` `from`, `to` or `reason`: not as the field says' },
} satisfies Operation;

function openInvitesLimit(): ApiError {
  return new ApiError(429, 'rate.limited', {
    headers: { 'Retry-After': '3600' },
    limit: 'brake/invites',
    message: `Du hast schon ${maxOpenInvites} offene Einladungen: höchstens ${maxOpenInvites} auf einmal. Ziehe eine zurück oder warte, bis eine benutzt wird oder abläuft.`,
  });
}

function weeklyInvitesLimit(limit: number, wait: number): ApiError {
  return new ApiError(429, 'rate.limited', {
    headers: { 'Retry-After': String(wait) },
    limit: 'brake/invites-week',
    message: `Zu viele Einladungen: höchstens ${limit} in ${inviteWeekSeconds / 86_400} Tagen, zurückgezogene mitgezählt. Bitte warte noch ${waitText(wait)}.`,
  });
}

/**
 * Why `uid` may not make an invite now, as POST /api/user/invites answers it, or undefined;
 * GET /api/user/invites shows the same, so the page says it before anyone clicks. The weekly bound
 * comes before the open one: revoking an invite frees an open place, never a place in the week.
 */
function inviteRefusal(ctx: Ctx, uid: number, now: number): ApiError | undefined {
  const { db, config } = ctx.app;
  // Why: an invite skips approval, so it is worth only what its inviter's record is worth.
  if (config.limitsFactor > 0 && trustLevel(db, uid, now) === 0)
    return new ApiError(403, 'trust.required', {
      message: 'Neue Konten können noch niemanden einladen: das geht ab Vertrauensstufe 1.',
    });
  if (config.limitsFactor > 0) {
    const perWeek = scaledLimit(maxInvitesPerWeek, config.limitsFactor);
    const nextAt = nextInviteAt(db, uid, perWeek, now);
    if (nextAt > now) return weeklyInvitesLimit(perWeek, nextAt - now);
  }
  if (countOpenInvites(db, uid, now) >= maxOpenInvites) return openInvitesLimit();
  return undefined;
}

export async function newInvite(ctx: Ctx) {
  const session = requireUser(ctx);
  await ctx.form();
  const { db, config, clock } = ctx.app;
  const now = clock.now();
  // Checked in the transaction that writes: two requests at once cannot both take the last place.
  const invite = createInvite(db, session.uid, inviteLifetimeSeconds, now, () => {
    const refusal = inviteRefusal(ctx, session.uid, now);
    if (refusal) throw refusal;
  });
  return created({ ...invite, url: `${config.origin}/register#${invite.token}` });
}
newInvite.doc = {
  id: 'createInvite',
  summary: `Make an invite (valid ${inviteLifetimeSeconds / 86_400} days, single use); the token is shown only here`,
  description: 'Who may invite, and how many: docs/API.md "Invites".',
  ok: json('the invite; `url` carries the token in its fragment', ref('NewInvite'), 201),
  errors: { 403: ['trust.required'], 429: ['rate.limited'] },
  when: {
    'trust.required': 'the account is at trust level 0 (docs/API.md "Trust levels")',
    'rate.limited': `the write limit \`invite\`; ${maxOpenInvites} open invites already; or ${maxInvitesPerWeek} made in the last 7 days, revoked ones counted (\`Retry-After\` until the oldest of them leaves the week). The message names the limit`,
  },
} satisfies Operation;

export function invites(ctx: Ctx) {
  const session = requireUser(ctx);
  const now = ctx.app.clock.now();
  const refusal = inviteRefusal(ctx, session.uid, now);
  return {
    invites: listInvites(ctx.app.db, session.uid, now),
    open: countOpenInvites(ctx.app.db, session.uid, now),
    ...(refusal ? { refusal: refusal.body().error } : {}),
  };
}
invites.doc = {
  id: 'listInvites',
  summary: "One's own invites, newest first (at most 100), and why a new one would be refused now",
  ok: json('the invites', ref('InviteList')),
} satisfies Operation;

export async function revoke(ctx: Ctx<'id'>) {
  const session = requireUser(ctx);
  const id = integerParam(ctx.params.id, 'id');
  await ctx.form();
  const outcome = revokeInvite(ctx.app.db, session.uid, id, ctx.app.clock.now());
  if (outcome === 'not_found') throw new ApiError(404, 'invite.not_found');
  if (outcome === 'not_open') throw new ApiError(409, 'invite.not_open');
  return { id, status: 'revoked' };
}
revoke.doc = {
  id: 'revokeInvite',
  summary: "Revoke one of one's own open invites",
  ok: json('revoked', object({ id: integer(), status: oneOfValues('revoked') })),
  errors: { 400: ['input.invalid'], 404: ['invite.not_found'], 409: ['invite.not_open'] },
  when: { 'invite.not_found': "unknown, or someone else's", 'invite.not_open': 'used, expired or revoked already' },
} satisfies Operation;

export function accountForModerators(ctx: Ctx<'username'>) {
  requireModerator(ctx);
  const user = namedAccount(ctx);
  const { db, clock } = ctx.app;
  return {
    username: user.username,
    created_at: user.created_at,
    status: user.status || 'active',
    role: user.role,
    banned_until: user.banned_until,
    trust_level: trustLevel(db, user.uid, clock.now()),
    ...inviteTreeOf(db, user.uid),
    tree_size: treeBanTargets(db, user.uid).length,
  };
}
accountForModerators.doc = {
  id: 'accountForModerators',
  summary: 'An account as moderators see it: status, trust level, inviter, invitees and the size of its invite tree',
  ok: json('the account', ref('ModeratedAccount')),
  errors: { 404: ['user.not_found'] },
  when: { 'user.not_found': 'no account has the name' },
} satisfies Operation;

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
registrationState.doc = {
  id: 'registrationState',
  summary: 'The mode in force, who set it, the surge gate and the accounts of its last wave',
  ok: json('the door', ref('RegistrationState')),
} satisfies Operation;

export function registrationModeField(raw: string): RegistrationMode {
  const mode = raw.trim().toLowerCase();
  if (!(registrationModes as readonly string[]).includes(mode))
    throw invalidField('mode', fieldMessages.registrationMode);
  return mode as RegistrationMode;
}

export async function setRegistration(ctx: Ctx) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const mode = registrationModeField(textField(form, 'mode'));
  const { db, config, clock } = ctx.app;
  setRegistrationMode(db, config, { mode, setBy: 'moderator' }, mod.uid, clock.now());
  return { mode: registrationInForce(db, config).mode };
}
setRegistration.doc = {
  id: 'setRegistration',
  summary: 'Set the registration mode; it stays until changed (the configured mode hands back to BOARD_REGISTRATION)',
  fields: { mode: requiredField('open, approval, invite or closed') },
  ok: json('the mode in force', object({ mode: oneOfValues('open', 'approval', 'invite', 'closed') })),
  errors: { 400: ['input.invalid'] },
  when: { 'input.invalid': '`field` `mode`: another word' },
} satisfies Operation;

export async function setTrust(ctx: Ctx<'username'>) {
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
setTrust.doc = {
  id: 'setTrust',
  summary: "Set an account's trust level (0 or 1); never public, logged for the administrator (board-admin modlog)",
  fields: { level: requiredField('0 or 1') },
  ok: json('the level set', object({ username: string(), trust_level: oneOfValues(0, 1) })),
  errors: { 400: ['input.invalid'], 403: ['mod.target_moderator'], 404: ['user.not_found'] },
  when: {
    'input.invalid': '`field` `level`: neither 0 nor 1',
    'mod.target_moderator':
      "the account is a moderator: trusted by its role, its level is not the moderation's to lower",
    'user.not_found': 'unknown user',
  },
} satisfies Operation;
