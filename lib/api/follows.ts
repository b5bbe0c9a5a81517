import { requireUser, type Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam, textField } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { findLiveEntry } from '../entries/entries.ts';
import { maxFeedPage, maxFollows } from '../product.ts';
import { followEntry, followState, readFollowing, setFollowOwnThreads, unfollowEntry } from '../follows/follows.ts';
import {
  arrayOf,
  constant,
  integer,
  json,
  object,
  oneOfValues,
  ref,
  requiredField,
  time,
  type Operation,
} from '../openapi/kit.ts';
import { withEntries } from '../entries/reads.ts';

const followAnswer = (following: 0 | 1) =>
  json('done (also when it was so already)', object({ status: constant('ok'), following: constant(following) }));
const followStateSchema = object({
  own_threads: { ...oneOfValues(0, 1), description: "the account's setting: its new threads are followed" },
  pids: { ...arrayOf(integer('a followed entry', { minimum: 1 }), maxFollows), description: 'every followed entry' },
});

export async function follow(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
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
follow.doc = {
  id: 'followEntry',
  summary: 'Follow a live entry and everything below it: new replies there notify (thread_reply)',
  description: 'No fields.',
  ok: followAnswer(1),
  errors: { 400: ['input.invalid'], 404: ['entry.not_found'] },
  when: {
    'input.invalid': `\`field\` \`pid\`: malformed, or the account follows ${maxFollows} entries already`,
    'entry.not_found': 'unknown or deleted entry',
  },
} satisfies Operation;

export async function unfollow(ctx: Ctx<'pid'>) {
  const me = requireUser(ctx);
  const pid = integerParam(ctx.params.pid, 'pid');
  await ctx.form();
  unfollowEntry(ctx.app.db, me.uid, pid);
  return { status: 'ok', following: 0 };
}
unfollow.doc = {
  id: 'unfollowEntry',
  summary: 'Stop following an entry (also when it was not followed, or is gone)',
  description: 'No fields.',
  ok: followAnswer(0),
  errors: { 400: ['input.invalid'] },
} satisfies Operation;

export function following(ctx: Ctx<'page'>) {
  const me = requireUser(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  return withEntries(ctx.app.db, readFollowing(ctx.app.db, me.uid, page));
}
following.doc = {
  id: 'following',
  summary: 'The followed entries, most recently followed first, 20 a page',
  ok: json(
    'one page',
    arrayOf(
      object({
        pid: integer(undefined, { minimum: 1 }),
        followed_at: time(),
        entry: { ...ref('Entry'), description: 'without `latest`; a deleted one with its content blanked' },
      }),
      20,
    ),
  ),
  errors: { 400: ['input.invalid'] },
} satisfies Operation;

export function followingState(ctx: Ctx) {
  const me = requireUser(ctx);
  return followState(ctx.app.db, me.uid);
}
followingState.doc = {
  id: 'followingState',
  summary: 'Whether own new threads are followed, and every followed pid (for the menus)',
  ok: json('the state', followStateSchema),
} satisfies Operation;

export async function followOwnThreads(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const value = textField(form, 'follow');
  if (value !== '0' && value !== '1') throw invalidField('follow', fieldMessages.followFlag);
  setFollowOwnThreads(ctx.app.db, me.uid, value === '1');
  return followState(ctx.app.db, me.uid);
}
followOwnThreads.doc = {
  id: 'followOwnThreads',
  summary: 'Whether the account follows its own new threads (default 1); existing follows stay',
  fields: {
    follow: requiredField('1: new threads of the account are followed by their author; 0: not', {
      type: 'string',
      enum: ['0', '1'],
    }),
  },
  ok: json('the new state, as GET /api/user/following/state answers it', followStateSchema),
  errors: { 400: ['input.invalid'] },
  when: { 'input.invalid': '`field` `follow`: neither 1 nor 0' },
} satisfies Operation;
