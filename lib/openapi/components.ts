import {
  maxAltLength,
  maxContentLength,
  maxModReasonLength,
  maxNearAncestors,
  maxPreviewTitleLength,
  maxReportReasonLength,
  maxReportsPerEntry,
  maxSessionDescriptionLength,
  maxThreadReplies,
  maxUsernameLength,
  maxWaveAccounts,
  minUsernameLength,
  statsWindowDays,
  topAsnCount,
} from '../product.ts';
import { arrayOf, constant, integer, object, oneOfValues, ref, string, time, type JsonSchema } from './kit.ts';

/**
 * The shared schemas of the OpenAPI document (`#/components/schemas/...`), written once from
 * docs/API.md "Objects": every answer that shows an Entry, a user or an error points here.
 */

const entryId = integer('entry id', { minimum: 1 });
const userId = integer('user id; 0 for the tombstone of a deleted account');

/** The Entry's members (docs/API.md "Entry"); `latest` only where docs/API.md allows it. */
const entryRequired: Record<string, JsonSchema> = {
  pid: entryId,
  uid: userId,
  created_at: time('creation time'),
  content: string(`text, at most ${maxContentLength} characters; "" when deleted`, { maxLength: maxContentLength }),
  filepath: string('image path under static/media/ (e/<random>.<ext>); "" when none or deleted', {
    pattern: '^(e/[^/]+)?$',
  }),
  reply_to: integer('parent pid; 0 for a top-level entry'),
  reply_count: integer('direct replies, deleted ones included'),
  last_activity: time('moved by a new reply below and by a bump'),
  deleted: oneOfValues(0, 1),
  bump_count: integer(),
  last_bump: time('0 when never bumped'),
  username: string('author\'s current name; "" for a tombstone'),
  avatar: string('author\'s avatar path under static/media/; "" when none', { pattern: '^(a/[^/]+)?$' }),
};
const entryOptional: Record<string, JsonSchema> = {
  alt: string(
    "the author's description of the image, its alt text; only when the entry has an image and it was described",
    { minLength: 1, maxLength: maxAltLength },
  ),
  removed: constant(1),
  removed_reason: string("the moderation's public reason (with removed only)"),
  edited_at: time('the last edit; only on an entry edited since it was written, never on a deleted one'),
  preview: ref('Preview'),
};

const profile = {
  uid: integer('user id', { minimum: 1 }),
  username: string(undefined, { minLength: minUsernameLength, maxLength: maxUsernameLength }),
  created_at: time(),
  avatar: string('avatar path under static/media/; "" when none', { pattern: '^(a/[^/]+)?$' }),
};
const banned = {
  banned_until: integer('-1 for a permanent ban, else when it ends (Unix seconds); only while banned', { minimum: -1 }),
};

export const schemas: Record<string, JsonSchema> = {
  Entry: object(entryRequired, entryOptional),
  EntryWithLatest: object(entryRequired, { ...entryOptional, latest: ref('Latest') }),
  Latest: object({ entry: ref('Entry'), skipped: integer('entries on the path in between, deleted ones included') }),
  Preview: object({
    url: string('canonical address of the first link', { format: 'uri' }),
    kind: oneOfValues('page', 'youtube'),
    title: string(undefined, { minLength: 1, maxLength: maxPreviewTitleLength }),
    site: string('site or channel name'),
    thumb: string('thumbnail path under static/media/; "" when none', { pattern: '^(preview/[^/]+)?$' }),
  }),
  Thread: object(
    {
      entry: ref('Entry'),
      ancestors: arrayOf(ref('Entry'), maxNearAncestors + 1),
      replies: arrayOf(ref('EntryWithLatest'), maxThreadReplies),
    },
    {
      ancestors_skipped: integer(`ancestors left out between the root and the nearest ${maxNearAncestors}`, {
        minimum: 1,
      }),
    },
  ),
  VoteTally: object({ pid: entryId, yes: integer(), no: integer(), selected: oneOfValues('yes', 'no', 'none') }),
  PublicUser: object(profile, {
    ...banned,
    fediverse: string('while federation is on: @name@host, how to follow the account from another server'),
  }),
  OwnUser: object(
    { ...profile, last_login: time('0 until the first login') },
    {
      role: constant('moderator'),
      trust_level: oneOfValues(0, 1),
    },
  ),
  Session: object({
    uid: integer(undefined, { minimum: 1 }),
    created_at: time(),
    expires: time(),
    description: string('the User-Agent at login', { maxLength: maxSessionDescriptionLength }),
  }),
  SessionListItem: object(
    {
      id: string('opaque session id', { pattern: '^[0-9a-f]{32}$' }),
      created_at: time(),
      expires: time(),
      description: string('the User-Agent at login', { maxLength: maxSessionDescriptionLength }),
      device: string('a readable German guess at the device'),
      current: oneOfValues(0, 1),
    },
    {
      push: object({ service: string("the push service's origin"), created_at: time() }),
    },
  ),
  Stats: object({ users: integer(), entries: integer() }),
  StatsDetail: object({
    users: integer(),
    entries: integer(),
    toplevel: integer(),
    replies: integer(),
    votes: object({ yes: integer(), no: integer() }),
    impressions_total: integer(),
    visitors_total: integer(),
    daily: {
      ...arrayOf(
        object({ day: string('UTC day', { format: 'date' }), impressions: integer(), visitors: integer() }),
        statsWindowDays,
      ),
      minItems: statsWindowDays,
    },
    top_asns: arrayOf(object({ asn: integer('0: unknown'), name: string(), visitors: integer() }), topAsnCount),
  }),
  QueueItem: object({
    entry: ref('Entry'),
    open_reports: integer(undefined, { minimum: 1 }),
    reports: arrayOf(
      object({
        id: integer(),
        created_at: time(),
        reason: string(undefined, { maxLength: maxReportReasonLength }),
        reporter: constant(''),
      }),
      maxReportsPerEntry,
    ),
  }),
  /** An instance on the moderators' "Instanzen" (docs/API.md "Federation"). */
  Instance: object({
    host: string('the host as its URLs write it, with the port when not the default'),
    state: oneOfValues('', 'allowed', 'blocked'),
    changed_at: time('when the decision was made; 0 without one'),
    followers: integer('its accounts that follow the board or one of its people'),
    queued: integer('deliveries waiting for it'),
    delivered: integer('deliveries it took'),
    failed: integer('deliveries given up after two days of tries'),
    last_delivered: time('the last delivery it took; 0 for none'),
  }),
  ModlogRow: object({
    id: integer(),
    created_at: time(),
    action: oneOfValues(
      'remove',
      'restore',
      'ban',
      'unban',
      'avatar_remove',
      'dismiss',
      'approve',
      'reject',
      'registration',
      'instance_allow',
      'instance_block',
      'instance_unblock',
    ),
    pid: integer('the entry acted on; 0 for actions on accounts'),
    username: string('the account acted on, by its current name; "" when deleted'),
    reason: string(undefined, { maxLength: maxModReasonLength }),
    until: integer('for ban: banned_until (-1 permanent); else 0', { minimum: -1 }),
  }),
  /** The notification list's item (docs/API.md "GET /api/user/notifications/{page}"). */
  Notification: object({
    id: integer('notification id (for up_to)', { minimum: 1 }),
    created_at: time(),
    kind: oneOfValues('reply', 'mention', 'thread_reply'),
    read: oneOfValues(0, 1),
    entry: ref('Entry'),
  }),
  MutedAccount: object({ uid: integer(undefined, { minimum: 1 }), username: string() }),
  Application: object({
    username: string(),
    created_at: time(),
    application: string(),
    same_minute: integer('registrations in the same minute'),
    same_hour: integer('registrations in the hour before'),
  }),
  RegistrationState: object(
    {
      mode: oneOfValues('open', 'approval', 'invite', 'closed'),
      set_by: oneOfValues('config', 'moderator', 'operator', 'surge'),
      since: time('0 for the configured mode'),
      configured: oneOfValues('open', 'approval', 'invite', 'closed'),
      surge: object({ threshold: integer('0: off'), window: integer('seconds') }),
      wave: arrayOf(
        object({
          username: string(),
          created_at: time(),
          status: oneOfValues('active', 'pending', 'rejected'),
          banned: { type: 'boolean' },
        }),
        maxWaveAccounts,
      ),
    },
    { last_surge: object({ at: time(), accounts: integer() }) },
  ),
  RegistrationInfo: object({
    mode: oneOfValues('open', 'approval', 'invite', 'closed'),
    question: string('approval mode: the question `application` answers; else ""'),
    pow: { type: 'boolean', description: 'registration needs a solved challenge in `altcha`' },
  }),
  NewInvite: object({
    id: integer(),
    token: string(),
    url: string('<BOARD_ORIGIN>/register#<token>'),
    expires: time(),
  }),
  Invite: object({
    id: integer(),
    created_at: time(),
    expires: time(),
    status: oneOfValues('open', 'used', 'expired', 'revoked'),
    used_by: string('the account it made, "" until used'),
    used_at: time('0 until used'),
  }),
  InviteList: object(
    { invites: arrayOf(ref('Invite'), 100), open: integer('open invites now') },
    { refusal: ref('Error') },
  ),
  ModeratedAccount: object({
    username: string(),
    created_at: time(),
    status: oneOfValues('active', 'pending', 'rejected'),
    role: string(),
    banned_until: integer(undefined, { minimum: -1 }),
    trust_level: oneOfValues(0, 1),
    invited_by: string('"" when none or the administrator'),
    invitees: arrayOf(object({ username: string(), created_at: time() }), 100),
    tree_size: integer('accounts a ban with tree=1 takes with it: the invite tree below, without moderators'),
  }),
  // A proof-of-work challenge (ALTCHA v2, lib/registration/pow.ts), signed over every parameter.
  PowParameters: object(
    {
      algorithm: string('PBKDF2/SHA-256'),
      nonce: string('hex'),
      salt: string('hex'),
      cost: integer('PBKDF2 iterations per counter'),
      keyLength: integer(),
      keyPrefix: string('hex: the first half of the key of the counter to find'),
      expiresAt: time(),
      data: object({ max: integer('the largest counter it can be') }),
    },
    { keySignature: string() },
  ),
  PowChallenge: object({ parameters: ref('PowParameters'), signature: string('HMAC of the parameters') }),
  Error: object(
    { code: string('stable, <area>.<thing> or internal'), message: string('German, for people', { minLength: 1 }) },
    {
      field: string('the request field concerned'),
      fields: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'registration only: every bad field with its message',
      },
    },
  ),
};
