import { findEntry, findLiveEntry } from '../entries/entries.ts';
import type { Form } from '../http/body.ts';
import { requireModerator, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam } from '../http/fields.ts';
import { removeMedia } from '../media/files.ts';
import { fieldMessages } from '../messages.ts';
import {
  maxBanDays,
  maxModlogPage,
  maxModReasonLength,
  maxQueuePage,
  maxTreeAccounts,
  modlogPageSize,
  queuePageSize,
} from '../product.ts';
import { banTree, banUser, removeAvatarOf, unbanUser } from '../moderation/accounts.ts';
import { permanentBan } from '../accounts/bans.ts';
import { dismissReports, removeEntry, restoreEntry } from '../moderation/entries.ts';
import { moderationReason } from '../modlog/reasons.ts';
import { readPublicModlog } from '../modlog/modlog.ts';
import { countEntriesWithOpenReports, countOpenReports, readReportQueue } from '../moderation/reports.ts';
import { findUserByName, moderatorRole } from '../accounts/users.ts';
import { arrayOf, constant, field, integer, json, object, ref, string, type Operation } from '../openapi/kit.ts';

/**
 * The moderators' endpoints (docs/API.md "Moderation"). The pipeline has already answered 401
 * and 403 mod.required; each handler still starts with requireModerator to learn who acts.
 * Then: path 400 → body → 404 → 403 → fields 400 → state 409 → write → answer.
 */

/** The `reason` field as the OpenAPI document shows it. */
const reasonDoc = (required: boolean) =>
  field(
    `${required ? '1' : '0'}–${maxModReasonLength} characters after cleaning; public (on the entry and in the log)`,
    { type: 'string', maxLength: maxModReasonLength },
    required,
  );
/** The answer of an action on an entry. */
const entryAction = (done: string) => object({ pid: integer(undefined, { minimum: 1 }), status: constant(done) });
/** The answer of a ban and an unban. */
const banAnswer = object({
  username: string(),
  banned_until: integer('-1 permanent, else when it ends; 0 after an unban', { minimum: -1 }),
});
/** A ban's answer: with tree=1 also how many invited accounts went with it. */
const banTreeAnswer = object(
  { username: string(), banned_until: integer('-1 permanent, else when it ends', { minimum: -1 }) },
  { invitees_banned: integer('tree=1: invited accounts banned with it') },
);

/** The `reason` field: 1 to maxModReasonLength characters, or 0 to it where it is optional (dismiss). */
export function reasonField(form: Form, required: boolean): string {
  const reason = moderationReason(form.fields.get('reason') ?? '');
  if (reason.error === 'long' || (required && reason.error === 'empty')) {
    throw invalidField('reason', required ? fieldMessages.modReason : fieldMessages.modReasonLong);
  }
  return reason.text;
}

/** A ban's end from `days` (1 to maxBanDays; absent or empty: permanent). */
function banUntil(form: Form, now: number): number {
  const raw = form.fields.get('days')?.trim() ?? '';
  if (raw === '') return permanentBan;
  const days = /^\d{1,4}$/.test(raw) ? Number(raw) : 0;
  if (days < 1 || days > maxBanDays) throw invalidField('days', fieldMessages.banDays);
  return now + days * 86_400;
}

function purgeFlag(form: Form): boolean {
  const raw = form.fields.get('purge') ?? '';
  if (raw !== '' && raw !== '0' && raw !== '1') throw invalidField('purge', fieldMessages.purgeFlag);
  return raw === '1';
}

/** `tree`: 1 bans the account's invite tree with it (docs/API.md "Invites"). */
function treeFlag(form: Form): boolean {
  const raw = form.fields.get('tree') ?? '';
  if (raw !== '' && raw !== '0' && raw !== '1') throw invalidField('tree', fieldMessages.treeFlag);
  return raw === '1';
}

function targetUser(ctx: Ctx<'username'>) {
  const user = findUserByName(ctx.app.db, ctx.params.username);
  if (!user) throw new ApiError(404, 'user.not_found');
  return user;
}

/** POST /api/mod/entry/{pid}/remove */
export async function remove(ctx: Ctx<'pid'>) {
  const mod = requireModerator(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  if (!findLiveEntry(db, pid)) throw new ApiError(404, 'entry.not_found');
  const reason = reasonField(form, true);
  if (!removeEntry(db, pid, reason, mod.uid, clock.now())) throw new ApiError(404, 'entry.not_found');
  return { pid, status: 'removed' };
}
remove.doc = {
  id: 'removeEntry',
  summary: 'Remove an entry (can be undone; closes its open reports)',
  fields: { reason: reasonDoc(true) },
  ok: json('removed', entryAction('removed')),
  errors: { 404: ['entry.not_found'] },
} satisfies Operation;

/** POST /api/mod/entry/{pid}/restore */
export async function restore(ctx: Ctx<'pid'>) {
  const mod = requireModerator(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form(); // no fields, but a malformed or oversized body still answers 413/415
  const outcome = restoreEntry(ctx.app.db, pid, mod.uid, ctx.app.clock.now());
  if (outcome === 'not_found') throw new ApiError(404, 'entry.not_found');
  if (outcome === 'not_removed') throw new ApiError(409, 'mod.not_removed');
  return { pid, status: 'restored' };
}
restore.doc = {
  id: 'restoreEntry',
  summary: 'Undo a removal',
  ok: json('restored', entryAction('restored')),
  errors: { 404: ['entry.not_found'], 409: ['mod.not_removed'] },
} satisfies Operation;

/** POST /api/mod/entry/{pid}/dismiss */
export async function dismiss(ctx: Ctx<'pid'>) {
  const mod = requireModerator(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  if (!findEntry(db, pid)) throw new ApiError(404, 'entry.not_found');
  if (countOpenReports(db, pid) === 0) throw new ApiError(404, 'report.not_found');
  const reason = reasonField(form, false);
  if (!dismissReports(db, pid, reason, mod.uid, clock.now())) throw new ApiError(404, 'report.not_found');
  return { pid, status: 'dismissed' };
}
dismiss.doc = {
  id: 'dismissReports',
  summary: "Close an entry's open reports, leaving the entry as it is",
  fields: { reason: reasonDoc(false) },
  ok: json('dismissed', entryAction('dismissed')),
  errors: { 404: ['entry.not_found', 'report.not_found'] },
} satisfies Operation;

/** POST /api/mod/user/{username}/ban */
export async function ban(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const user = targetUser(ctx);
  // Moderators cannot ban each other: a rogue or stolen moderator account could lock out all the rest.
  if (user.role === moderatorRole) throw new ApiError(403, 'mod.target_moderator');
  const now = ctx.app.clock.now();
  const reason = reasonField(form, true);
  const until = banUntil(form, now);
  const ban = { reason, until, purge: purgeFlag(form) };
  if (!treeFlag(form)) {
    banUser(ctx.app.db, user.uid, ban, mod.uid, now);
    return { username: user.username, banned_until: until };
  }
  const invitees = banTree(ctx.app.db, user.uid, ban, mod.uid, now);
  return { username: user.username, banned_until: until, invitees_banned: invitees };
}
ban.doc = {
  id: 'ban',
  summary: 'Ban an account for some days or for good (ends its sessions)',
  fields: {
    reason: reasonDoc(true),
    days: field(`1–${maxBanDays}; absent or empty: permanent`, { type: 'string', pattern: '^\\s*\\d*\\s*$' }),
    purge: field('1: also remove every live entry of the account', { enum: ['', '0', '1'] }),
    tree: field(`1: also ban every account it invited, and theirs (at most ${maxTreeAccounts}; moderators stay)`, {
      enum: ['', '0', '1'],
    }),
  },
  ok: json('banned', banTreeAnswer),
  errors: { 400: ['input.invalid'], 403: ['mod.target_moderator'], 404: ['user.not_found'] },
} satisfies Operation;

/** POST /api/mod/user/{username}/unban */
export async function unban(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  await ctx.form(); // no fields, but a malformed or oversized body still answers 413/415
  const user = targetUser(ctx);
  if (!unbanUser(ctx.app.db, user.uid, mod.uid, ctx.app.clock.now())) throw new ApiError(409, 'mod.not_banned');
  return { username: user.username, banned_until: 0 };
}
unban.doc = {
  id: 'unban',
  summary: 'Lift a ban',
  ok: json('lifted', banAnswer),
  errors: { 404: ['user.not_found'], 409: ['mod.not_banned'] },
} satisfies Operation;

/** POST /api/mod/user/{username}/avatar/remove: the file goes after the commit, best-effort. */
export async function removeAvatar(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  const form = await ctx.form();
  const user = targetUser(ctx);
  const reason = reasonField(form, true);
  const old = removeAvatarOf(ctx.app.db, user.uid, reason, mod.uid, ctx.app.clock.now());
  if (!old) throw new ApiError(409, 'mod.no_avatar');
  await removeMedia(ctx.app.config, [old], ctx.app.log);
  return { username: user.username, avatar: '' };
}
removeAvatar.doc = {
  id: 'removeAvatar',
  summary: "Remove an account's avatar",
  fields: { reason: reasonDoc(true) },
  ok: json('removed', object({ username: string(), avatar: constant('') })),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'], 409: ['mod.no_avatar'] },
} satisfies Operation;

/** GET /api/mod/reports/{page}: the queue; reporters' names stay with the administrator. */
export function reportQueue(ctx: Ctx<'page'>) {
  requireModerator(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxQueuePage);
  return readReportQueue(ctx.app.db, page);
}
reportQueue.doc = {
  id: 'reportQueue',
  summary: `The entries with open reports, most reports first, ${queuePageSize} a page`,
  ok: json('the page; [] past the end', arrayOf(ref('QueueItem'), queuePageSize)),
} satisfies Operation;

/** GET /api/mod/queue: how many entries wait in the queue (the header link's number). */
export function queueSize(ctx: Ctx) {
  requireModerator(ctx);
  return { open_entries: countEntriesWithOpenReports(ctx.app.db) };
}
queueSize.doc = {
  id: 'queueSize',
  summary: 'How many entries have open reports',
  ok: json('the count', object({ open_entries: integer() })),
} satisfies Operation;

/** GET /api/modlog/{page}: public, no session; names no moderator. */
export function publicLog(ctx: Ctx<'page'>) {
  const page = integerParam(ctx.params.page, 'page', 0, maxModlogPage);
  return readPublicModlog(ctx.app.db, page);
}
publicLog.doc = {
  id: 'modlog',
  summary: `The public moderation log, newest first, ${modlogPageSize} rows a page (names no moderator)`,
  ok: json('the page; [] past the end', arrayOf(ref('ModlogRow'), modlogPageSize)),
} satisfies Operation;
