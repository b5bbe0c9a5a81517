import { stripBidiControls } from '../text/bidi.ts';
import { judgeEntryContent, type EditedEntry, type EntryDraft, type JudgedEntry } from '../entries/content-gate.ts';
import {
  bumpCooldownUntil,
  bumpEntry,
  createEntry,
  editEntry,
  findLiveEntry,
  softDeleteEntry,
} from '../entries/entries.ts';
import type { Form } from '../http/body.ts';
import { created, requireUser, type Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { removeMedia } from '../media/files.ts';
import { storeImage } from '../media/stored-images.ts';
import { requestPreview } from '../preview/queue.ts';
import {
  duplicateWindowSeconds,
  latestMaxDepth,
  maxAltLength,
  maxContentLength,
  maxReplyDepth,
  minDuplicateLength,
  newAccountLinkDelaySeconds,
} from '../product.ts';
import {
  field,
  imageFile,
  imageWhen,
  integer,
  json,
  object,
  status,
  string,
  time,
  type Operation,
} from '../openapi/kit.ts';

/** Text as stored: line breaks unified, control characters other than tab and newline dropped, bidi controls too, trimmed. */
function cleanContent(raw: string): string {
  return stripBidiControls(raw.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')).trim();
}

/**
 * The optional `alt` field (docs/API.md "POST /api/entry/create"): one line (control characters
 * and runs of whitespace become one space), bidi controls dropped like in entry text; undefined
 * when the form has no such field. Its length is the entry gate's to judge.
 */
function altField(form: Form): string | undefined {
  const raw = form.fields.get('alt');
  if (raw === undefined) return undefined;
  return stripBidiControls(raw)
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
}

function judge(ctx: Ctx, uid: number, draft: EntryDraft, edited?: EditedEntry): JudgedEntry {
  const standing = ctx.standing()!;
  return judgeEntryContent(ctx.app, { uid, standing }, draft, ctx.app.clock.now(), edited);
}

const contentDoc = (required: boolean) =>
  field(
    `text, cleaned as docs/API.md "Choices the spec left open" says (Entries), then at most ${maxContentLength} characters`,
    { type: 'string', maxLength: maxContentLength },
    required,
  );
const altSchema = string(
  `the author's description of the image, at most ${maxAltLength} characters; only when one is stored`,
  { minLength: 1, maxLength: maxAltLength },
);
const altDoc = (when: string) =>
  field(
    `optional description of the image for people who cannot see it, at most ${maxAltLength} characters after cleaning (bidi controls dropped as in the text; line breaks, tabs, other control characters and runs of whitespace become one space; trimmed); ${when}`,
    { type: 'string' },
  );

/** When create and edit answer what the entry gate refuses (lib/entries/content-gate.ts), and their Tor refusal. */
const gateWhen = {
  'tor.blocked': 'the client address is in the Tor exit list (checked before the body is read)',
  'entry.too_long': `\`field\` \`content\`: more than ${maxContentLength} characters after cleaning`,
  'entry.duplicate': `\`field\` \`content\`: the same text (trimmed, any letter case, ${minDuplicateLength} characters or more) as one of the account's live entries written (created or edited) in the last ${duplicateWindowSeconds / 60} minutes; an edit that keeps its entry's own text is no copy`,
};

function parseReplyTo(raw: string | undefined): number {
  return raw === undefined || raw === '' ? 0 : integerParam(raw.trim(), 'reply_to');
}

/**
 * No writing of entry text through Tor exits (docs/API.md "POST /api/entry/create", "…/edit"):
 * abuse without consequence, and a fresh address per circuit. Reading, voting and the rest stay open.
 */
function refuseTor(ctx: Ctx): void {
  if (ctx.app.tor.has(ctx.ip)) throw new ApiError(403, 'tor.blocked');
}

export async function create(ctx: Ctx) {
  const me = requireUser(ctx);
  const { db, config, clock } = ctx.app;
  refuseTor(ctx);
  const form = await ctx.form();
  const replyTo = parseReplyTo(form.fields.get('reply_to'));
  const parent = replyTo ? findLiveEntry(db, replyTo) : undefined;
  if (replyTo && !parent) throw new ApiError(404, 'entry.not_found');
  if (parent && parent.depth + 1 > maxReplyDepth) throw new ApiError(400, 'entry.too_deep', { field: 'reply_to' });
  const file = form.files.get('file');
  const text = cleanContent(textField(form, 'content'));
  // A description without an image describes nothing: it is neither judged nor stored.
  const sentAlt = file ? altField(form) : undefined;
  const judged = judge(ctx, me.uid, { content: text, image: file !== undefined, alt: sentAlt });
  const { content, link } = judged;
  const alt = sentAlt ?? '';

  let filepath = '';
  if (file) filepath = await storeImage(config, ctx.app.images, 'entry', file.data);
  let pid: number | undefined;
  try {
    // Batched with the other creates of this turn: one commit for all of them (docs/SCALING.md),
    // answered only after it. The duplicate check stays in the insert's savepoint, so two copies
    // sent at once cannot both pass, in one batch or in two.
    pid = await db.txBatched(() => {
      judged.checkInWrite(db);
      return createEntry(db, { uid: me.uid, content, filepath, replyTo, parent, link, alt }, clock.now());
    });
  } catch (err) {
    await removeMedia(config, [filepath], ctx.app.log);
    throw err;
  }
  if (pid === undefined) {
    await removeMedia(config, [filepath], ctx.app.log);
    throw new ApiError(404, 'entry.not_found');
  }
  requestPreview(ctx.app, link); // fetched in the background, never on the request path
  if (replyTo) ctx.app.threadReplies?.wake();
  return created({ pid, content, filepath, reply_to: replyTo, ...(alt ? { alt } : {}) });
}
create.doc = {
  id: 'createEntry',
  summary: 'Write an entry or a reply',
  description: `Content or file is required; the answer holds the stored values (\`alt\` only when one was stored). A reply raises the parent's \`reply_count\`, moves \`last_activity\` of every ancestor to now and becomes \`latest\` of its nearest ${latestMaxDepth} ancestors. The first link of the text is queued for a preview when its record is missing or stale (docs/API.md "Link previews"); the answer never waits for it.`,
  fields: {
    content: contentDoc(false),
    file: imageFile('an image: JPEG, GIF, PNG or WebP (multipart only)'),
    alt: altDoc('ignored (not stored) without a file'),
    reply_to: field('the parent pid; absent, empty or 0: a top-level entry', {
      type: 'string',
      pattern: '^\\s*\\d*\\s*$',
    }),
  },
  ok: json(
    'the stored entry',
    object(
      {
        pid: integer(undefined, { minimum: 1 }),
        content: string(undefined, { maxLength: maxContentLength }),
        filepath: string(undefined, { pattern: '^(e/[^/]+)?$' }),
        reply_to: integer(),
      },
      { alt: altSchema },
    ),
    201,
  ),
  errors: {
    400: ['input.invalid', 'entry.too_deep', 'entry.empty', 'entry.too_long', 'upload.bad_type'],
    403: ['tor.blocked'],
    404: ['entry.not_found'],
    409: ['entry.duplicate'],
    413: ['upload.too_large'],
    429: ['rate.new_account'],
  },
  when: {
    ...gateWhen,
    ...imageWhen,
    'rate.limited': 'write limit `create`, checked before anything else of the request (docs/API.md "Rate limits")',
    'input.invalid': `\`field\` \`reply_to\`: not a non-negative integer; \`field\` \`alt\`: over ${maxAltLength} characters after cleaning`,
    'entry.not_found': '`reply_to` names an unknown or deleted entry',
    'entry.too_deep': `\`field\` \`reply_to\`: the reply would lie more than ${maxReplyDepth} levels below its root (the parent is ${maxReplyDepth} deep): a chain deeper than that made every read near its bottom and its author's deletion expensive`,
    'entry.empty': 'no content (or only whitespace) and no file',
    'rate.new_account': `the account is younger than ${newAccountLinkDelaySeconds / 60} minutes and the entry has a link or an image (\`Retry-After\`; the message says when it will work), or a cap of level 0 on links and images (docs/API.md "Trust levels")`,
  },
} satisfies Operation;

function ownLiveEntry(ctx: Ctx, uid: number, pid: number) {
  const entry = findLiveEntry(ctx.app.db, pid);
  if (!entry) throw new ApiError(404, 'entry.not_found');
  if (entry.uid !== uid) throw new ApiError(403, 'entry.not_author');
  return entry;
}

export async function edit(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  refuseTor(ctx); // an edit could turn a harmless entry into spam just as well
  const form = await ctx.form();
  const entry = ownLiveEntry(ctx, me.uid, pid);
  // An image-only entry may lose its text; the gate judges the rest as for a create.
  const newAlt = altField(form);
  const draft = { content: cleanContent(textField(form, 'content')), image: entry.filepath !== '', alt: newAlt };
  const judged = judge(ctx, me.uid, draft, entry);
  const { content, link } = judged;
  // Absent: the description stays as it is; present (also empty): it is replaced. Only an image has one.
  const alt = entry.filepath ? (newAlt ?? entry.alt) : '';
  const { db, clock } = ctx.app;
  db.tx(() => {
    judged.checkInWrite(db);
    editEntry(db, pid, content, link, clock.now(), alt);
  });
  requestPreview(ctx.app, link);
  return { pid, content, ...(alt ? { alt } : {}) };
}
edit.doc = {
  id: 'editEntry',
  summary: 'Change the text (and the image description) of an own entry',
  description:
    "The edited entry is judged as a create would be, on what it holds after the edit (its image included): the same length and description rules, the new-account brake, level 0's caps and the duplicate rule, with the same answers. Why: otherwise an entry posted harmless could be edited into what a create may not post. An edit cannot attach an image (a `file` part is ignored). `last_activity` does not move; `edited_at` becomes now. The first link is recorded again and queued for a preview when its record is missing or stale (SPEC: an edit re-triggers the fetch); an edit that removes the link removes the preview from the entry.",
  fields: {
    content: contentDoc(true),
    alt: altDoc('absent: the description stays; empty: removed; an entry without an image keeps none'),
  },
  ok: json(
    'the new text',
    object({ pid: integer(), content: string(undefined, { maxLength: maxContentLength }) }, { alt: altSchema }),
  ),
  errors: {
    400: ['input.invalid', 'entry.empty', 'entry.too_long'],
    403: ['tor.blocked', 'entry.not_author'],
    404: ['entry.not_found'],
    409: ['entry.duplicate'],
    429: ['rate.new_account'],
  },
  when: {
    ...gateWhen,
    'rate.limited': 'write limit `edit`',
    'input.invalid': `\`field\` \`alt\`: over ${maxAltLength} characters after cleaning`,
    'entry.not_found': 'unknown or deleted entry',
    'entry.not_author': "someone else's entry",
    'entry.empty': 'empty content on an entry without an image (an image-only entry may lose its text)',
    'rate.new_account': `the text holds a link (or the entry has an image) and the account is younger than ${newAccountLinkDelaySeconds / 60} minutes, or a cap of level 0 on links (docs/API.md "Trust levels")`,
  },
} satisfies Operation;

export async function remove(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
  ownLiveEntry(ctx, me.uid, pid);
  const filepath = softDeleteEntry(ctx.app.db, pid, ctx.app.clock.now());
  await removeMedia(ctx.app.config, [filepath], ctx.app.log);
  return { status: 'deleted' };
}
remove.doc = {
  id: 'deleteEntry',
  summary: 'Delete an own entry (soft: it keeps its place in the thread)',
  description:
    'No fields. The entry keeps its place in the tree, its `uid`, `username`, counts and votes; `content` and `filepath` become "" and the image file is removed. Ancestors whose `latest` it was get the next newest live descendant.',
  ok: json('deleted', status('deleted')),
  errors: { 403: ['entry.not_author'], 404: ['entry.not_found'] },
  when: { 'entry.not_found': 'unknown or already deleted', 'entry.not_author': "someone else's entry" },
} satisfies Operation;

export async function bump(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx); // anyone logged in may bump, the author too (docs/API.md "POST /api/entry/{pid}/bump")
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
  const { db, clock } = ctx.app;
  const now = clock.now();
  const entry = findLiveEntry(db, pid);
  if (!entry) throw new ApiError(404, 'entry.not_found');
  if (!bumpEntry(db, pid, me.uid, now)) {
    const wait = Math.max(1, bumpCooldownUntil(entry) - now);
    throw new ApiError(429, 'entry.bump_cooldown', {
      headers: { 'Retry-After': String(wait) },
      extra: { retry_after: wait, bump_count: entry.bump_count },
    });
  }
  const bumped = findLiveEntry(db, pid)!;
  return {
    pid,
    bump_count: bumped.bump_count,
    last_bump: bumped.last_bump,
    last_activity: bumped.last_activity,
    retry_after: bumpCooldownUntil(bumped) - now,
  };
}
bump.doc = {
  id: 'bump',
  summary: 'Bump an entry to the top; the cooldown grows by a day with each bump',
  description:
    'No fields; anyone logged in may bump, the author too. `last_activity` of the entry and all its ancestors moves to now. A never-bumped entry may be bumped at once; after the n-th bump the next is allowed n days after `last_bump`.',
  ok: json(
    'bumped',
    object({
      pid: integer(),
      bump_count: integer(undefined, { minimum: 1 }),
      last_bump: time(),
      last_activity: time(),
      retry_after: integer('seconds until the next bump is allowed'),
    }),
  ),
  errors: { 404: ['entry.not_found'], 429: ['entry.bump_cooldown'] },
  when: {
    'entry.not_found': 'unknown or deleted entry',
    'entry.bump_cooldown':
      'the cooldown runs: `Retry-After` and `retry_after` next to `error` are the seconds left (at least 1), `bump_count` is beside them',
    'rate.limited': 'write limit `bump`, before the cooldown: it counts bumps of any entry',
  },
} satisfies Operation;
