import { feedPageSize, maxFeedPage } from '../product.ts';
import { findPublicAccount } from '../accounts/users.ts';
import { findEntry } from '../entries/entries.ts';
import { readFeedPage, readThread, readUserFeedPage } from '../entries/reads.ts';
import type { Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { integerParam, plainNumber } from '../http/fields.ts';
import type { CacheLookup } from '../http/route.ts';
import { arrayOf, json, ref, type Operation } from '../openapi/kit.ts';
import { responsesOf } from '../http/response-cache.ts';

/**
 * The feed, threads and user feeds, kept as serialised JSON in the response cache
 * (lib/http/response-cache.ts); the feed pages and threads also by the fast path
 * (lib/http/fast-path.ts), whose lookups are here, beside the handlers whose reading they share.
 */

const feedPage = (raw: string) => integerParam(raw, 'page', 0, maxFeedPage);
const threadPid = (raw: string) => integerParam(raw, 'pid');

export function feed(ctx: Ctx<'page'>) {
  const page = feedPage(ctx.params.page);
  const { db } = ctx.app;
  return responsesOf(db).feed(page, () => readFeedPage(db, page));
}
feed.doc = {
  id: 'feed',
  summary: `A page of the feed: top-level entries by last activity, ${feedPageSize} a page`,
  description:
    'Ordered by `last_activity`, then `pid`, both descending; each with `latest` when it has one. A deleted top-level entry is left out unless it has a `latest`.',
  ok: json('the page; [] past the end', arrayOf(ref('EntryWithLatest'), feedPageSize)),
} satisfies Operation;

export const cachedFeed: CacheLookup<'page'> = (app, { page }) =>
  plainNumber(page) ? responsesOf(app.db).cachedFeed(feedPage(page)) : undefined;

export function thread(ctx: Ctx<'pid'>) {
  const pid = threadPid(ctx.params.pid);
  const { db } = ctx.app;
  const page = responsesOf(db).thread(
    pid,
    () => findEntry(db, pid)?.root,
    () => readThread(db, pid),
  );
  if (!page) throw new ApiError(404, 'entry.not_found');
  return page;
}
thread.doc = {
  id: 'thread',
  summary: 'An entry with its ancestors and direct replies (also when deleted)',
  ok: json('the thread', ref('Thread')),
  errors: { 404: ['entry.not_found'] },
  when: { 'entry.not_found': "no such entry (it never existed, or went with its author's account)" },
} satisfies Operation;

export const cachedThread: CacheLookup<'pid'> = (app, { pid }) =>
  plainNumber(pid) ? responsesOf(app.db).cachedThread(threadPid(pid)) : undefined;

export function userFeed(ctx: Ctx<'username' | 'page'>) {
  const page = feedPage(ctx.params.page);
  const { db } = ctx.app;
  const user = findPublicAccount(db, ctx.params.username);
  if (!user) throw new ApiError(404, 'user.not_found');
  return responsesOf(db).userFeed(user.uid, page, () => readUserFeedPage(db, user.uid, page));
}
userFeed.doc = {
  id: 'userFeed',
  summary: "A page of a user's live entries, replies included, newest first",
  description: `The user's entries that are not deleted, top-level entries and replies, newest first, ${feedPageSize} a page, without \`latest\`.`,
  ok: json('the page; [] past the end', arrayOf(ref('Entry'), feedPageSize)),
  errors: { 404: ['user.not_found'] },
  when: {
    'input.invalid': '`field` `page`: checked before the user',
    'user.not_found': 'no public account has the name (docs/API.md "Which accounts are public")',
  },
} satisfies Operation;
