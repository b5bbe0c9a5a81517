import { findLiveEntry } from '../entries/entries.ts';
import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { maxBulkPids } from '../limits/product.ts';
import { castVote, findTallies, findTally, type VoteMode } from '../entries/votes.ts';

/** GET /api/entry/{pid}/votes: also for a deleted entry; `selected` is none without a session. */
export function votes(ctx: Ctx) {
  const pid = integerParam(ctx.params.pid, 'pid');
  const tally = findTally(ctx.app.db, pid, ctx.session()?.uid ?? 0);
  if (!tally) throw new ApiError(404, 'entry.not_found');
  return tally;
}

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

/** POST /api/entry/{pid}/vote: the vote state machine (lib/entries/votes.ts); an invalid mode changes nothing. */
export async function vote(ctx: Ctx) {
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
