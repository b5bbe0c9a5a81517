import { arrayOf, constant, field, integer, json, object, ref, string, type Area } from './kit.ts';

/** docs/API.md "Moderation": the moderators' actions and queue, and the public log. */

const reason = (required: boolean) =>
  field(
    `${required ? '1' : '0'}–500 characters after cleaning; public (on the entry and in the log)`,
    { type: 'string', maxLength: 500 },
    required,
  );
const entryAction = (done: string) => object({ pid: integer(undefined, { minimum: 1 }), status: constant(done) });
const banned = object({
  username: string(),
  banned_until: integer('-1 permanent, else when it ends; 0 after an unban', { minimum: -1 }),
});

/** A ban's answer: with tree=1 also how many invited accounts went with it. */
const bannedTree = object(
  { username: string(), banned_until: integer('-1 permanent, else when it ends', { minimum: -1 }) },
  { invitees_banned: integer('tree=1: invited accounts banned with it') },
);

export const moderation: Area = {
  tag: 'Moderation',
  description:
    "For moderators (403 mod.required for everyone else, checked right after the session; then the actions' write limits, 429 rate.limited); the log is public.",
  operations: {
    'GET /api/mod/reports/:page': {
      id: 'reportQueue',
      summary: 'The entries with open reports, most reports first, 20 a page',
      ok: json('the page; [] past the end', arrayOf(ref('QueueItem'), 20)),
    },
    'GET /api/mod/queue': {
      id: 'queueSize',
      summary: 'How many entries have open reports',
      ok: json('the count', object({ open_entries: integer() })),
    },
    'POST /api/mod/entry/:pid/remove': {
      id: 'removeEntry',
      summary: 'Remove an entry (can be undone; closes its open reports)',
      fields: { reason: reason(true) },
      ok: json('removed', entryAction('removed')),
      errors: { 404: ['entry.not_found'] },
    },
    'POST /api/mod/entry/:pid/restore': {
      id: 'restoreEntry',
      summary: 'Undo a removal',
      ok: json('restored', entryAction('restored')),
      errors: { 404: ['entry.not_found'], 409: ['mod.not_removed'] },
    },
    'POST /api/mod/entry/:pid/dismiss': {
      id: 'dismissReports',
      summary: "Close an entry's open reports, leaving the entry as it is",
      fields: { reason: reason(false) },
      ok: json('dismissed', entryAction('dismissed')),
      errors: { 404: ['entry.not_found', 'report.not_found'] },
    },
    'POST /api/mod/user/:username/ban': {
      id: 'ban',
      summary: 'Ban an account for some days or for good (ends its sessions)',
      fields: {
        reason: reason(true),
        days: field('1–3650; absent or empty: permanent', { type: 'string', pattern: '^\\s*\\d*\\s*$' }),
        purge: field('1: also remove every live entry of the account', { enum: ['', '0', '1'] }),
        tree: field('1: also ban every account it invited, and theirs (at most 1000; moderators stay)', {
          enum: ['', '0', '1'],
        }),
      },
      ok: json('banned', bannedTree),
      errors: { 400: ['input.invalid'], 403: ['mod.target_moderator'], 404: ['user.not_found'] },
    },
    'POST /api/mod/user/:username/unban': {
      id: 'unban',
      summary: 'Lift a ban',
      ok: json('lifted', banned),
      errors: { 404: ['user.not_found'], 409: ['mod.not_banned'] },
    },
    'POST /api/mod/user/:username/avatar/remove': {
      id: 'removeAvatar',
      summary: "Remove an account's avatar",
      fields: { reason: reason(true) },
      ok: json('removed', object({ username: string(), avatar: constant('') })),
      errors: { 400: ['input.invalid'], 404: ['user.not_found'], 409: ['mod.no_avatar'] },
    },
    'GET /api/modlog/:page': {
      id: 'modlog',
      summary: 'The public moderation log, newest first, 50 rows a page (names no moderator)',
      ok: json('the page; [] past the end', arrayOf(ref('ModlogRow'), 50)),
    },
  },
};
