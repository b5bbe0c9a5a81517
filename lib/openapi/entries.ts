import { altchaField } from './registration.ts';
import {
  arrayOf,
  field,
  imageFile,
  integer,
  json,
  object,
  ref,
  requiredField,
  status,
  string,
  time,
  type Area,
} from './kit.ts';

/** docs/API.md "Entries", "Votes", "Reports" and the bulk tallies of "Extensions". */

const content = (required: boolean) =>
  field('text, cleaned and trimmed, at most 1000 characters', { type: 'string', maxLength: 1000 }, required);
/** The image description of create and edit (docs/API.md "POST /api/entry/create"), and how answers show it. */
const altSchema = string("the author's description of the image, at most 300 characters; only when one is stored", {
  minLength: 1,
  maxLength: 300,
});
const alt = (when: string) =>
  field(
    `optional description of the image, at most 300 characters after cleaning (else 400 input.invalid field alt); ${when}`,
    { type: 'string' },
  );

export const entries: Area = {
  tag: 'Entries',
  description: 'The feed, threads, writing, bumping, votes and reports.',
  operations: {
    'GET /api/entry/feed/:page': {
      id: 'feed',
      summary: 'A page of the feed: top-level entries by last activity, 20 a page',
      ok: json('the page; [] past the end', arrayOf(ref('EntryWithLatest'), 20)),
    },
    'POST /api/entry/create': {
      id: 'createEntry',
      summary: 'Write an entry or a reply',
      description: 'Content or file is required. The first link is queued for a preview.',
      fields: {
        content: content(false),
        file: imageFile('an image: JPEG, GIF, PNG or WebP (multipart only)'),
        alt: alt('ignored without a file'),
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
            content: string(undefined, { maxLength: 1000 }),
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
    },
    'GET /api/entry/:pid/thread': {
      id: 'thread',
      summary: 'An entry with its ancestors and direct replies (also when deleted)',
      ok: json('the thread', ref('Thread')),
      errors: { 404: ['entry.not_found'] },
    },
    'POST /api/entry/:pid/edit': {
      id: 'editEntry',
      summary: 'Change the text (and the image description) of an own entry',
      fields: {
        content: content(true),
        alt: alt('absent: the description stays; empty: removed; an entry without an image keeps none'),
      },
      ok: json(
        'the new text',
        object({ pid: integer(), content: string(undefined, { maxLength: 1000 }) }, { alt: altSchema }),
      ),
      errors: {
        400: ['input.invalid', 'entry.empty', 'entry.too_long'],
        403: ['tor.blocked', 'entry.not_author'],
        404: ['entry.not_found'],
        429: ['rate.new_account'],
      },
    },
    'POST /api/entry/:pid/delete': {
      id: 'deleteEntry',
      summary: 'Delete an own entry (soft: it keeps its place in the thread)',
      ok: json('deleted', status('deleted')),
      errors: { 403: ['entry.not_author'], 404: ['entry.not_found'] },
    },
    'POST /api/entry/:pid/bump': {
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
    },
    'POST /api/entry/:pid/report': {
      id: 'report',
      summary: 'Report an entry (anonymous without a session)',
      fields: {
        reason: field('optional, at most 500 characters', { type: 'string', maxLength: 500 }),
        altcha: altchaField,
      },
      ok: json('reported (a repeated open report of the same account stores nothing)', status('reported')),
      errors: { 400: ['report.too_long', 'pow.invalid'], 404: ['entry.not_found'] },
    },
    'GET /api/entry/votes': {
      id: 'bulkVotes',
      summary: 'The vote tallies of up to 100 entries in one request',
      query: {
        pids: requiredField('1 to 100 entry ids, comma-separated, no spaces', {
          type: 'string',
          pattern: '^\\d{1,15}(,\\d{1,15})*$',
        }),
      },
      ok: json('the tallies in the order asked; unknown pids left out', arrayOf(ref('VoteTally'), 100)),
      errors: { 400: ['input.invalid'] },
    },
    'GET /api/entry/:pid/votes': {
      id: 'votes',
      summary: "An entry's vote tally (a session fills in `selected`)",
      ok: json('the tally', ref('VoteTally')),
      errors: { 404: ['entry.not_found'] },
    },
    'POST /api/entry/:pid/vote': {
      id: 'vote',
      summary: 'Vote yes or no; the same vote again withdraws it',
      fields: { mode: requiredField('yes or no', { enum: ['yes', 'no'] }) },
      ok: json('the tally after the vote', ref('VoteTally')),
      errors: { 400: ['vote.invalid_mode'], 404: ['entry.not_found'] },
    },
  },
};
