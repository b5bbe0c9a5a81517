import { findEntry, findLiveEntry } from '../entries/entries.ts';
import type { Form } from '../http/body.ts';
import { requireModerator, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam } from '../http/fields.ts';
import { removeMedia } from '../media/files.ts';
import { fieldMessages } from '../messages.ts';
import {
  latestMaxDepth,
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

const reasonDoc = (required: boolean) =>
  field(
    `${required ? '1' : '0'}–${maxModReasonLength} characters after cleaning; public (on the entry and in the log)`,
    { type: 'string', maxLength: maxModReasonLength },
    required,
  );
const reasonWhen = (required: boolean) =>
  required
    ? `\`field\` \`reason\`: missing, empty or over ${maxModReasonLength} characters`
    : `\`field\` \`reason\`: over ${maxModReasonLength} characters`;
const entryAction = (done: string) => object({ pid: integer(undefined, { minimum: 1 }), status: constant(done) });
const banAnswer = object({
  username: string(),
  banned_until: integer('-1 permanent, else when it ends; 0 after an unban', { minimum: -1 }),
});
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
  description: 'What a removal changes, and what stays for a restore: docs/API.md "What a removal does".',
  fields: { reason: reasonDoc(true) },
  ok: json('removed', entryAction('removed')),
  errors: { 404: ['entry.not_found'] },
  when: {
    'input.invalid': reasonWhen(true),
    'entry.not_found': 'unknown, deleted (by its author) or already removed entry',
  },
} satisfies Operation;

export async function restore(ctx: Ctx<'pid'>) {
  const mod = requireModerator(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
  const outcome = restoreEntry(ctx.app.db, pid, mod.uid, ctx.app.clock.now());
  if (outcome === 'not_found') throw new ApiError(404, 'entry.not_found');
  if (outcome === 'not_removed') throw new ApiError(409, 'mod.not_removed');
  return { pid, status: 'restored' };
}
restore.doc = {
  id: 'restoreEntry',
  summary: 'Undo a removal',
  description: `No fields. The entry is live again with its text, image and link, counts in the statistics again, and becomes \`latest\` again of each of its ${latestMaxDepth} nearest ancestors whose \`latest\` is older; \`last_activity\` does not move. It is its author's as before (they can edit and delete it again). The reports it had stay closed.`,
  ok: json('restored', entryAction('restored')),
  errors: { 404: ['entry.not_found'], 409: ['mod.not_removed'] },
  when: {
    'entry.not_found':
      'unknown entry, or its author deleted the account (the deletion erases the stored text and image; also while its background part is still under way)',
    'mod.not_removed': 'the entry is not removed (live, or deleted by its author)',
  },
} satisfies Operation;

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
  description:
    'Every open report on the entry is closed (recorded as `dismiss`); reports on an entry its author deleted can be dismissed too. Whoever filed a closed report may report the entry again.',
  fields: { reason: reasonDoc(false) },
  ok: json('dismissed', entryAction('dismissed')),
  errors: { 404: ['entry.not_found', 'report.not_found'] },
  when: {
    'input.invalid': reasonWhen(false),
    'entry.not_found': 'no such entry',
    'report.not_found': 'the entry has no open report',
  },
} satisfies Operation;

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
  description:
    'What a ban does while it lasts, and a second ban: docs/API.md "What a ban does". The invite tree: docs/API.md "Invites".',
  fields: {
    reason: reasonDoc(true),
    days: field(`a whole number 1–${maxBanDays}: the ban ends that many days from now; absent or empty: permanent`, {
      type: 'string',
      pattern: '^\\s*\\d*\\s*$',
    }),
    purge: field(
      "1: also remove every live entry of the account (each as by remove, with the ban's reason and a log row of its own); absent, empty or 0: not",
      { enum: ['', '0', '1'] },
    ),
    tree: field(`1: also ban every account it invited, and theirs (at most ${maxTreeAccounts}; moderators stay)`, {
      enum: ['', '0', '1'],
    }),
  },
  ok: json('banned', banTreeAnswer),
  errors: { 400: ['input.invalid'], 403: ['mod.target_moderator'], 404: ['user.not_found'] },
  when: {
    'input.invalid': '`field` `reason`, `days`, `purge` or `tree`: not as the field says',
    'mod.target_moderator':
      'the account is a moderator (a moderator cannot ban another moderator, nor themselves; the administrator can, which ends the role)',
    'user.not_found': 'unknown user',
  },
} satisfies Operation;

export async function unban(ctx: Ctx<'username'>) {
  const mod = requireModerator(ctx);
  await ctx.form();
  const user = targetUser(ctx);
  if (!unbanUser(ctx.app.db, user.uid, mod.uid, ctx.app.clock.now())) throw new ApiError(409, 'mod.not_banned');
  return { username: user.username, banned_until: 0 };
}
unban.doc = {
  id: 'unban',
  summary: 'Lift a ban',
  description: 'No fields. The user may log in again.',
  ok: json('lifted', banAnswer),
  errors: { 404: ['user.not_found'], 409: ['mod.not_banned'] },
  when: {
    'user.not_found': 'unknown user',
    'mod.not_banned': 'the account is not banned (never, lifted already, or the ban has ended)',
  },
} satisfies Operation;

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
  description:
    'The avatar is gone from every entry and the user info at once, and the file is deleted. The user may upload a new one.',
  fields: { reason: reasonDoc(true) },
  ok: json('removed', object({ username: string(), avatar: constant('') })),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'], 409: ['mod.no_avatar'] },
  when: {
    'input.invalid': reasonWhen(true),
    'user.not_found': 'unknown user',
    'mod.no_avatar': 'the account has no avatar',
  },
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
  description:
    "The entry with the most open reports first, then the one whose oldest open report is oldest. A banned user's reports stay in the queue.",
  ok: json('the page; [] past the end', arrayOf(ref('QueueItem'), queuePageSize)),
} satisfies Operation;

export function queueSize(ctx: Ctx) {
  requireModerator(ctx);
  return { open_entries: countEntriesWithOpenReports(ctx.app.db) };
}
queueSize.doc = {
  id: 'queueSize',
  summary: 'How many entries have open reports',
  description: "The number on the front end's header link for moderators.",
  ok: json('the count', object({ open_entries: integer() })),
} satisfies Operation;

export function publicLog(ctx: Ctx<'page'>) {
  const page = integerParam(ctx.params.page, 'page', 0, maxModlogPage);
  return readPublicModlog(ctx.app.db, page);
}
publicLog.doc = {
  id: 'modlog',
  summary: `The public moderation log, newest first, ${modlogPageSize} rows a page (names no moderator)`,
  description: 'What it shows and what it keeps for the administrator: docs/API.md "The public moderation log".',
  ok: json('the page; [] past the end', arrayOf(ref('ModlogRow'), modlogPageSize)),
} satisfies Operation;
