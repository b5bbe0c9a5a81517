import { findLiveEntry } from '../entries/entries.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { maxBulkPids } from '../product.ts';
import { castVote, findTallies, findTally, type VoteMode } from '../entries/votes.ts';
import { arrayOf, json, ref, requiredField, type Operation } from '../openapi/kit.ts';

/** GET /api/entry/{pid}/votes: also for a deleted entry; `selected` is none without a session. */
export function votes(ctx: Ctx<'pid'>) {
  const pid = integerParam(ctx.params.pid, 'pid');
  const tally = findTally(ctx.app.db, pid, ctx.session()?.uid ?? 0);
  if (!tally) throw new ApiError(404, 'entry.not_found');
  return tally;
}
votes.doc = {
  id: 'votes',
  summary: "An entry's vote tally (a session fills in `selected`)",
  description: 'A deleted entry answers with its tally too.',
  ok: json('the tally', ref('VoteTally')),
  errors: { 404: ['entry.not_found'] },
  when: { 'entry.not_found': 'no such entry' },
} satisfies Operation;

/**
 * GET /api/entry/votes?pids=1,2,3 (extension): the tallies of many entries, in the order asked,
 * duplicates once, unknown pids left out.
 */
export function bulkVotes(ctx: Ctx) {
  const raw = ctx.url.searchParams.get('pids') ?? '';
  const parts = raw.split(',');
  if (!/^\d{1,15}(,\d{1,15})*$/.test(raw) || parts.length > maxBulkPids)
    throw invalidField('pids', fieldMessages.pidList);
  const pids = [...new Set(parts.map(Number))];
  const byPid = new Map(findTallies(ctx.app.db, pids, ctx.session()?.uid ?? 0).map((t) => [t.pid, t]));
  return pids.flatMap((pid) => byPid.get(pid) ?? []);
}
bulkVotes.doc = {
  id: 'bulkVotes',
  summary: `The vote tallies of up to ${maxBulkPids} entries in one request`,
  query: {
    pids: requiredField(`1 to ${maxBulkPids} entry ids (decimal digits, at most 15 each), comma-separated, no spaces`, {
      type: 'string',
      pattern: '^\\d{1,15}(,\\d{1,15})*$',
    }),
  },
  description:
    'The same tallies as GET /api/entry/{pid}/votes, in the order asked: a pid given twice is answered once, unknown pids are left out (`[]` when none is known), deleted entries answer with their tally. Why: docs/API.md "Extensions".',
  ok: json('the tallies in the order asked; unknown pids left out', arrayOf(ref('VoteTally'), maxBulkPids)),
  errors: { 400: ['input.invalid'] },
  when: {
    'input.invalid': `\`field\` \`pids\`: missing, empty, not a comma-separated list of integers, or more than ${maxBulkPids} items`,
  },
} satisfies Operation;

export async function vote(ctx: Ctx<'pid'>) {
  const { uid } = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  if (!findLiveEntry(db, pid)) throw new ApiError(404, 'entry.not_found');
  const mode = textField(form, 'mode');
  if (mode !== 'yes' && mode !== 'no') throw new ApiError(400, 'vote.invalid_mode', { field: 'mode' });
  castVote(db, pid, uid, mode satisfies VoteMode, clock.now());
  return findTally(db, pid, uid);
}
vote.doc = {
  id: 'vote',
  summary: 'Vote yes or no; the same vote again withdraws it',
  description:
    'No vote yet: the mode given; the same mode again: the vote is withdrawn (`selected` `none`); the other mode: switched. Authors may vote on their own entries.',
  fields: { mode: requiredField('yes or no', { enum: ['yes', 'no'] }) },
  ok: json('the tally after the vote', ref('VoteTally')),
  errors: { 400: ['vote.invalid_mode'], 404: ['entry.not_found'] },
  when: {
    'vote.invalid_mode': '`field` `mode`: missing, or not exactly `yes` or `no`; nothing changes',
    'entry.not_found': 'unknown or deleted entry',
  },
} satisfies Operation;
