import { findLiveEntry } from '../entries.ts';
import type { Ctx } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { castVote, findTally, type VoteMode } from '../votes.ts';

/** GET /api/entry/{pid}/votes: also for a deleted entry; `selected` is none without a session. */
export function votes(ctx: Ctx) {
  const pid = integerParam(ctx.params.pid, 'pid');
  const tally = findTally(ctx.app.db, pid, ctx.session()?.uid ?? 0);
  if (!tally) throw new ApiError(404, 'entry.not_found');
  return tally;
}

/** POST /api/entry/{pid}/vote: the SPEC §3 state machine; an invalid mode changes nothing. */
export async function vote(ctx: Ctx) {
  const pid = integerParam(ctx.params.pid, 'pid');
  const form = await ctx.form();
  const { db, clock } = ctx.app;
  if (!findLiveEntry(db, pid)) throw new ApiError(404, 'entry.not_found');
  const mode = textField(form, 'mode');
  if (mode !== 'yes' && mode !== 'no') throw new ApiError(400, 'vote.invalid_mode', { field: 'mode' });
  const uid = ctx.session()!.uid;
  castVote(db, pid, uid, mode satisfies VoteMode, clock.now());
  return findTally(db, pid, uid);
}
