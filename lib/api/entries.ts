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
import { removeMedia, saveMedia } from '../media/files.ts';
import { requestPreview } from '../preview/queue.ts';
import { maxAltLength, maxContentLength, maxReplyDepth } from '../product.ts';
import { field, imageFile, integer, json, object, status, string, time, type Operation } from '../openapi/kit.ts';

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

/** The entry gate (lib/entries/content-gate.ts) for the caller: its standing as the request computed it once. */
function judge(ctx: Ctx, uid: number, draft: EntryDraft, edited?: EditedEntry): JudgedEntry {
  const standing = ctx.standing()!; // requireUser passed: a session, so a standing
  return judgeEntryContent(ctx.app, { uid, standing }, draft, ctx.app.clock.now(), edited);
}

/** The text field of create and edit, as the OpenAPI document shows it. */
const contentDoc = (required: boolean) =>
  field(
    `text, cleaned and trimmed, at most ${maxContentLength} characters`,
    { type: 'string', maxLength: maxContentLength },
    required,
  );
/** The image description of create and edit (docs/API.md "POST /api/entry/create"), and how answers show it. */
const altSchema = string(
  `the author's description of the image, at most ${maxAltLength} characters; only when one is stored`,
  { minLength: 1, maxLength: maxAltLength },
);
const altDoc = (when: string) =>
  field(
    `optional description of the image, at most ${maxAltLength} characters after cleaning (else 400 input.invalid field alt); ${when}`,
    { type: 'string' },
  );

/** `reply_to` absent, empty or 0 means a top-level entry. */
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

/** POST /api/entry/create */
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
  if (file) {
    const image = await ctx.app.images.entry(file.data);
    filepath = await saveMedia(config, 'e', image.extension, image.data);
  }
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
  if (replyTo) ctx.app.threadReplies?.wake(); // its followers are told now, after the commit
  return created({ pid, content, filepath, reply_to: replyTo, ...(alt ? { alt } : {}) });
}
create.doc = {
  id: 'createEntry',
  summary: 'Write an entry or a reply',
  description: 'Content or file is required. The first link is queued for a preview.',
  fields: {
    content: contentDoc(false),
    file: imageFile('an image: JPEG, GIF, PNG or WebP (multipart only)'),
    alt: altDoc('ignored without a file'),
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
} satisfies Operation;

/** Loads a live entry the caller wrote: 404 when gone, 403 entry.not_author when someone else's. */
function ownLiveEntry(ctx: Ctx, uid: number, pid: number) {
  const entry = findLiveEntry(ctx.app.db, pid);
  if (!entry) throw new ApiError(404, 'entry.not_found');
  if (entry.uid !== uid) throw new ApiError(403, 'entry.not_author');
  return entry;
}

/** POST /api/entry/{pid}/edit */
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
  requestPreview(ctx.app, link); // an edit re-triggers the preview fetch (docs/API.md "Link previews")
  return { pid, content, ...(alt ? { alt } : {}) };
}
edit.doc = {
  id: 'editEntry',
  summary: 'Change the text (and the image description) of an own entry',
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
} satisfies Operation;

/** POST /api/entry/{pid}/delete: soft delete; the thread keeps its shape. */
export async function remove(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form(); // no fields, but a malformed or oversized body still answers 413/415
  ownLiveEntry(ctx, me.uid, pid);
  const filepath = softDeleteEntry(ctx.app.db, pid, ctx.app.clock.now());
  await removeMedia(ctx.app.config, [filepath], ctx.app.log);
  return { status: 'deleted' };
}
remove.doc = {
  id: 'deleteEntry',
  summary: 'Delete an own entry (soft: it keeps its place in the thread)',
  ok: json('deleted', status('deleted')),
  errors: { 403: ['entry.not_author'], 404: ['entry.not_found'] },
} satisfies Operation;

/** POST /api/entry/{pid}/bump */
export async function bump(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx); // anyone logged in may bump, the author too (docs/API.md "POST /api/entry/{pid}/bump")
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form(); // no fields, but a malformed or oversized body still answers 413/415
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
} satisfies Operation;
