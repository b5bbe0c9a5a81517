import {
  latestMaxDepth,
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
 * The shared schemas of the OpenAPI document (`#/components/schemas/...`): every answer that shows
 * an Entry, a user or an error points here, and docs/API.md "Objects" is written from them.
 */

const described = (description: string, schema: JsonSchema): JsonSchema => ({ ...schema, description });

const entryId = integer('entry id', { minimum: 1 });
const userId = integer('user id; 0 for the tombstone of a deleted account');

/** The Entry's members (docs/API.md "Entry"); `latest` only in EntryWithLatest. */
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
  last_activity: time(
    '`created_at` at first; moved to now by a new reply anywhere below and by a bump of the entry or of an entry below; not by edits or votes',
  ),
  deleted: oneOfValues(0, 1),
  bump_count: integer('number of bumps'),
  last_bump: time('0 when never bumped'),
  username: string('author\'s current name; "" for a tombstone'),
  avatar: string('author\'s current avatar path under static/media/; "" when none', { pattern: '^(a/[^/]+)?$' }),
};
const entryOptional: Record<string, JsonSchema> = {
  alt: string(
    `the author's description of the image (at most ${maxAltLength} characters), used as its alt text; only when the entry has an image and its author described it, never on a deleted or removed entry`,
    { minLength: 1, maxLength: maxAltLength },
  ),
  removed: {
    ...constant(1),
    description: 'the moderation removed the entry (then `deleted` is 1 too); absent otherwise',
  },
  removed_reason: string("the moderation's public reason (with removed only)"),
  edited_at: time(
    'the last edit; absent on an entry never edited and on a deleted one. The front end shows "bearbeitet" with this time',
  ),
  preview: { ...ref('Preview'), description: 'the first link\'s preview (docs/API.md "Link previews")' },
  remote: described(
    'an entry from another server (docs/API.md "Remote entries"): its author\'s actor, instance and the entry\'s page there; then `username` is the handle `@name@host`, which has no profile here',
    object({
      actor: string("the author's actor id", { format: 'uri' }),
      instance: string('the host, with its port when not the default'),
      url: string('the entry on its own server', { format: 'uri' }),
    }),
  ),
  shares: integer(
    'how many accounts on other servers shared (boosted) the entry (docs/API.md "Votes and shares from elsewhere"); absent when none',
    { minimum: 1 },
  ),
};

const profile = {
  uid: integer('user id', { minimum: 1 }),
  username: string(undefined, { minLength: minUsernameLength, maxLength: maxUsernameLength }),
  created_at: time('when the account was made'),
  avatar: string('avatar path under static/media/; "" when none', { pattern: '^(a/[^/]+)?$' }),
};
const banned = {
  banned_until: integer('-1 for a permanent ban, else when it ends (Unix seconds); only while banned', { minimum: -1 }),
};
const fediverseField = string('while federation is on: @name@host, how to follow the account from another server');

export const schemas: Record<string, JsonSchema> = {
  Entry: described('An entry, as every answer shows it.', object(entryRequired, entryOptional)),
  EntryWithLatest: described(
    "An Entry with its `latest`: in the feed, in search results and in a thread's `replies`; never in a thread's `entry` or `ancestors`, in the user feed, or inside `latest.entry`.",
    object(entryRequired, {
      ...entryOptional,
      latest: { ...ref('Latest'), description: `present when a live entry lies 1 to ${latestMaxDepth} levels below` },
    }),
  ),
  Latest: object({
    entry: {
      ...ref('Entry'),
      description: `the newest live descendant within ${latestMaxDepth} levels (highest \`created_at\`, then highest \`pid\`), without a \`latest\` of its own`,
    },
    skipped: integer('entries on the path between the two, deleted ones included; 0 for a direct reply'),
  }),
  Preview: described(
    'The preview of the first link of an entry\'s text: present when the link\'s preview record has a title and the entry is not deleted (docs/API.md "Link previews").',
    object({
      url: string(
        'canonical form of the first `http://` or `https://` link in the text (trailing `.,;:!?)]}\'"` trimmed): scheme and host lower-case, default port and fragment dropped, otherwise as written (not the redirect target); every video-site form (`youtu.be/ID`, `/watch?v=ID`, `/shorts/ID`, `/embed/ID`, `/live/ID`, `/v/ID`, on `m.`, `music.`, `www.` or `youtube-nocookie.com`) becomes `https://www.youtube.com/watch?v=ID`, other query parameters dropped. A link with a user name or password has no preview',
        { format: 'uri' },
      ),
      kind: {
        ...oneOfValues('page', 'youtube'),
        description: '`youtube` for the video site, `page` for everything else',
      },
      title: string(
        `video site: the oEmbed \`title\`; pages: \`og:title\`, else \`twitter:title\`, else \`<title>\`; entities decoded, whitespace collapsed, control and bidi-override characters dropped, at most ${maxPreviewTitleLength} code points`,
        { minLength: 1, maxLength: maxPreviewTitleLength },
      ),
      site: string(
        'video site: the oEmbed `author_name` (the channel); pages: `og:site_name`, else the host the page was finally fetched from, without `www.` and port',
      ),
      thumb: string(
        `\`preview/<random>.jpg\` under static/media/: a JPEG that fits inside 320×320, never enlarged, made from \`og:image\` (or the Twitter card image; relative URLs resolved against the page) or the oEmbed \`thumbnail_url\`; "" when there is none or it could not be fetched or decoded`,
        { pattern: '^(preview/[^/]+)?$' },
      ),
    }),
  ),
  Thread: object(
    {
      entry: { ...ref('Entry'), description: 'the entry itself, also when it is deleted; without `latest`' },
      ancestors: {
        ...arrayOf(ref('Entry'), maxNearAncestors + 1),
        description: `its ancestors, root first (\`[]\` for a top-level entry), without \`latest\`: the root and then at most the ${maxNearAncestors} nearest (overrides SPEC: all ancestors), so an answer stays small however deep the entry lies`,
      },
      replies: {
        ...arrayOf(ref('EntryWithLatest'), maxThreadReplies),
        description: `its direct replies, deleted ones included, at most ${maxThreadReplies} (the most recently active), by \`last_activity\` descending, then \`pid\` descending`,
      },
    },
    {
      ancestors_skipped: integer(
        `present only when ancestors were left out between the root and the nearest ${maxNearAncestors}: how many (an entry 150 levels deep: 50)`,
        { minimum: 1 },
      ),
    },
  ),
  VoteTally: object({
    pid: entryId,
    yes: integer(),
    no: integer(),
    selected: {
      ...oneOfValues('yes', 'no', 'none'),
      description: "the session's own vote; `none` without a session or without a vote",
    },
  }),
  PublicUser: described(
    'An account as everyone sees it; the role never shows.',
    object(profile, {
      ...banned,
      fediverse: fediverseField,
    }),
  ),
  OwnUser: described(
    'An account as its owner sees it; a banned account has no session to ask with, so no `banned_until`.',
    object(
      { ...profile, last_login: time('0 until the first login') },
      {
        role: { ...constant('moderator'), description: 'only for moderators' },
        fediverse: fediverseField,
        trust_level: {
          ...oneOfValues(0, 1),
          description: 'the trust level (docs/API.md "Trust levels"): the owner\'s to know, never in public answers',
        },
      },
    ),
  ),
  Session: object({
    uid: integer(undefined, { minimum: 1 }),
    created_at: time(),
    expires: time(),
    description: string(`the User-Agent at login (its first ${maxSessionDescriptionLength} characters)`, {
      maxLength: maxSessionDescriptionLength,
    }),
  }),
  SessionListItem: described(
    'A session in the session list: an opaque id rather than the uid, and the readable device.',
    object(
      {
        id: string(
          'opaque: 32 hex characters, random, stored with the session; neither the token nor its hash, and it cannot be turned into either',
          { pattern: '^[0-9a-f]{32}$' },
        ),
        created_at: time('when the session began'),
        expires: time('when it ends'),
        description: string(`the User-Agent at login (its first ${maxSessionDescriptionLength} characters)`, {
          maxLength: maxSessionDescriptionLength,
        }),
        device: string(
          'a readable German guess at the device from the User-Agent: `Firefox auf Linux`, `Safari auf iPhone`, `Chrome auf Android`, `curl`, `Unbekanntes Gerät`',
        ),
        current: { ...oneOfValues(0, 1), description: '1 for the session making the request, else 0' },
      },
      {
        push: {
          ...object({ service: string("the push service's origin"), created_at: time() }),
          description:
            "only when the session's browser gets push notifications (docs/API.md \"Web Push\"): `service` the push service's origin (e.g. `https://fcm.googleapis.com`), never the endpoint's path or the keys",
        },
      },
    ),
  ),
  Stats: object({
    users: integer('registered accounts'),
    entries: integer('entries that are not deleted, replies included'),
  }),
  StatsDetail: object({
    users: integer('as in Stats'),
    entries: integer('as in Stats'),
    toplevel: integer('entries that are not deleted, without `reply_to`'),
    replies: integer('entries that are not deleted, with `reply_to`; toplevel and replies add up to entries'),
    votes: {
      ...object({ yes: integer(), no: integer() }),
      description:
        "votes currently cast on all entries, deleted ones included (a withdrawn vote leaves, a switched one moves; a deleted account's votes leave)",
    },
    impressions_total: integer('page impressions since the board started counting (all time)'),
    visitors_total: integer(
      'the sum of the daily visitor counts, all time: someone who comes on three days counts three times',
    ),
    daily: {
      ...arrayOf(
        object({
          day: string('the UTC day, YYYY-MM-DD', { format: 'date' }),
          impressions: integer(),
          visitors: integer(),
        }),
        statsWindowDays,
      ),
      minItems: statsWindowDays,
      description: `always ${statsWindowDays} items: the ${statsWindowDays} UTC days ending today (today last, oldest first); days without traffic are there with zeros`,
    },
    top_asns: {
      ...arrayOf(object({ asn: integer('0: unknown'), name: string(), visitors: integer() }), topAsnCount),
      description: `at most ${topAsnCount}: the autonomous systems (networks) the visitors of the same ${statsWindowDays} days came from, most visitors first, ties by lower \`asn\`; \`asn\` 0 with \`name\` "unknown" for private addresses and addresses the data set does not list; \`visitors\` adds up the daily visitors of that network; \`[]\` before the first visitor`,
    },
  }),
  QueueItem: object({
    entry: {
      ...ref('Entry'),
      description: 'without `latest`; an entry its author deleted after the report shows as deleted',
    },
    open_reports: integer('the full count of open reports', { minimum: 1 }),
    reports: {
      ...arrayOf(
        object({
          id: integer(),
          created_at: time(),
          reason: string(undefined, { maxLength: maxReportReasonLength }),
          reporter: {
            ...constant(''),
            description: 'always "": the names of reporters stay with the administrator (`board-admin reports`)',
          },
          instance: string(
            'the server a report came from (a `Flag`, docs/API.md "Reports from other servers"); "" for one made here',
          ),
        }),
        maxReportsPerEntry,
      ),
      description: `the open reports, oldest first, at most ${maxReportsPerEntry}`,
    },
  }),
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
    username: string(
      'the account acted on (for remove, restore and dismiss: the entry\'s author), by its current name; "" when the account has been deleted since',
    ),
    reason: string('the action\'s reason; "" for restore, unban and a dismiss without one', {
      maxLength: maxModReasonLength,
    }),
    until: integer('for ban: banned_until (-1 permanent); else 0', { minimum: -1 }),
  }),
  Notification: object({
    id: integer('notification id (for up_to)', { minimum: 1 }),
    created_at: time(),
    kind: {
      ...oneOfValues('reply', 'mention', 'thread_reply'),
      description: '`thread_reply`: a reply in a followed thread (docs/API.md "Following threads")',
    },
    read: oneOfValues(0, 1),
    entry: { ...ref('Entry'), description: 'the entry that replies or mentions, without `latest`' },
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
      set_by: {
        ...oneOfValues('config', 'moderator', 'operator', 'surge'),
        description: '`operator`: a mode set with `board-admin registration`',
      },
      since: time('0 for the configured mode'),
      configured: oneOfValues('open', 'approval', 'invite', 'closed'),
      surge: object({ threshold: integer('0: off'), window: integer('seconds') }),
      wave: {
        description: "the accounts created in the window before the surge gate's last switch",
        ...arrayOf(
          object({
            username: string(),
            created_at: time(),
            status: oneOfValues('active', 'pending', 'rejected'),
            banned: { type: 'boolean' },
          }),
          maxWaveAccounts,
        ),
      },
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
    url: string(
      '<BOARD_ORIGIN>/register#<token>: the token only in the fragment, as in reset links; the board stores its SHA-256 only',
    ),
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
    { invites: { ...arrayOf(ref('Invite'), 100), description: 'newest first' }, open: integer('open invites now') },
    {
      refusal: {
        ...ref('Error'),
        description:
          'the error a new invite would get now (403 trust.required, 429 rate.limited for the invites of the last 7 days or the open ones); absent when it would be made, so the settings page says why before anyone clicks',
      },
    },
  ),
  ModeratedAccount: object({
    username: string(),
    created_at: time(),
    status: oneOfValues('active', 'pending', 'rejected'),
    role: string(),
    banned_until: integer(undefined, { minimum: -1 }),
    trust_level: oneOfValues(0, 1),
    invited_by: string('"" when none or the administrator'),
    invitees: {
      ...arrayOf(object({ username: string(), created_at: time() }), 100),
      description: 'the newest 100 accounts it invited itself',
    },
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
