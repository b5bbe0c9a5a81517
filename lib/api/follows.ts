import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { findLiveEntry } from '../entries/entries.ts';
import { maxFeedPage } from '../entries/reads.ts';
import { followEntry, followState, readFollowing, setFollowOwnThreads, unfollowEntry } from '../follows/follows.ts';

/** POST /api/entry/{pid}/follow: the entry's whole subtree; 200 also when already followed. */
export async function follow(ctx: Ctx) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form(); // no fields, but a malformed or oversized body still answers 413/415
  const { db, clock } = ctx.app;
  // Checked and written in one transaction: an entry deleted meanwhile is not followed.
  const outcome = db.tx(() => {
    if (!findLiveEntry(db, pid)) return 'gone';
    return followEntry(db, me.uid, pid, clock.now()) ? 'ok' : 'full';
  });
  if (outcome === 'gone') throw new ApiError(404, 'entry.not_found');
  if (outcome === 'full') throw invalidField('pid', fieldMessages.followLimit);
  return { status: 'ok', following: 1 };
}

/** POST /api/entry/{pid}/unfollow: 200 also when not followed, or when the entry is gone. */
export async function unfollow(ctx: Ctx) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
  unfollowEntry(ctx.app.db, me.uid, pid);
  return { status: 'ok', following: 0 };
}

/** GET /api/user/following/{page}: 20 a page, most recently followed first, each with its Entry. */
export function following(ctx: Ctx) {
  const me = requireUser(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  return readFollowing(ctx.app.db, me.uid, page);
}

/** GET /api/user/following/state: {own_threads, pids}, what the front end's menus need. */
export function followingState(ctx: Ctx) {
  const me = requireUser(ctx);
  return followState(ctx.app.db, me.uid);
}

/** POST /api/user/following/own-threads with follow 1 or 0: whether new threads of the account are followed. */
export async function followOwnThreads(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const value = textField(form, 'follow');
  if (value !== '0' && value !== '1') throw invalidField('follow', fieldMessages.followFlag);
  setFollowOwnThreads(ctx.app.db, me.uid, value === '1');
  return followState(ctx.app.db, me.uid);
}
