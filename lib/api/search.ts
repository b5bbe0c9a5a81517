import { performance } from 'node:perf_hooks';
import type { Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../errors.ts';
import { integerParam } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { queryTerms, termsExpression } from '../search/query.ts';
import { feedPageSize, maxFeedPage, maxSearchLength, maxSearchTerms } from '../product.ts';
import { searchPids } from '../search/search.ts';
import { findPublicAccount } from '../accounts/users.ts';
import { arrayOf, field, json, ref, requiredField, string, type Operation } from '../openapi/kit.ts';
import { codePoints } from '../text/code-points.ts';
import { responsesOf } from '../http/response-cache.ts';
import { readLiveEntriesWithLatest } from '../entries/reads.ts';

/**
 * A search this handler turns down (a bad page, q or user; the search line full) is answered no
 * sooner than this. Why: a script that asks again as soon as it has an answer made thousands of
 * refusals a second per connection, which took the event loop from every other request
 * (bench/search-results.md, "Searches under attack"); a person sees the message a moment later.
 */
const refusalAfterMs = 1_000;

export function search(ctx: Ctx<'page'>) {
  return slowRefusals(ctx, () => searchPage(ctx));
}

/** Runs a search; an ApiError it throws comes no sooner than refusalAfterMs after the start (also for the page /suche). */
export async function slowRefusals<T>(ctx: Ctx<string>, work: () => Promise<T>): Promise<T> {
  const asked = performance.now();
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError) await ctx.app.searchThreads.holdRefusal(refusalAfterMs - (performance.now() - asked));
    throw err;
  }
}

async function searchPage(ctx: Ctx<'page'>) {
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  const q = ctx.url.searchParams.get('q') ?? '';
  const username = ctx.url.searchParams.get('user') ?? '';
  const cached = await cachedSearch(ctx, q, username, page);
  return cached ?? [];
}

/**
 * A page of a search as JSON, from the response cache or matched on a search thread; undefined when
 * the query holds no word characters. Throws the API's errors for a bad q or an unknown author. The
 * page /suche asks here too.
 */
export async function cachedSearch(ctx: Ctx, q: string, username: string, page: number): Promise<Buffer | undefined> {
  const { db } = ctx.app;
  const author = username ? findPublicAccount(db, username) : undefined;
  if (username && !author) throw new ApiError(404, 'user.not_found');
  if (!q.trim() || codePoints(q) > maxSearchLength) throw invalidField('q', fieldMessages.searchQuery);
  const terms = queryTerms(q);
  if (terms.length > maxSearchTerms) throw invalidField('q', fieldMessages.searchTerms);
  const expression = termsExpression(terms);
  if (!expression) return undefined;
  const uid = author?.uid;
  return responsesOf(db).search(`${uid ?? ''}\n${page}\n${expression}`, () =>
    searchPids(expression, uid, page, ctx.app.searchThreads.all).then((pids) => readLiveEntriesWithLatest(db, pids)),
  );
}
search.doc = {
  id: 'search',
  summary: `Live entries holding every word of q, newest first, ${feedPageSize} a page`,
  description:
    'The live entries (not deleted, not removed) whose text or image description holds every term of `q`, newest first (`created_at`, then `pid`); answers are cached until the next write, like the feed pages. `q` is taken literally (a pair of double quotes makes a phrase); a word of 3+ characters finds the compounds that contain it, words of 1–2 characters match whole words: docs/API.md "How q matches". Every refusal but the rate limit\'s 429 comes no sooner than 1 s after the request: docs/API.md "How a search runs".',
  query: {
    q: requiredField(
      `what to look for, 1–${maxSearchLength} characters, not only whitespace, at most ${maxSearchTerms} words (a phrase in quotes counts as one)`,
      string(undefined, { minLength: 1, maxLength: maxSearchLength }),
    ),
    user: field(
      "a username (any letter case, spaces as in a login): search that author's entries only; empty is the same as absent",
    ),
  },
  ok: json('the matching entries, each with latest', arrayOf(ref('EntryWithLatest'), feedPageSize)),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'], 503: ['search.busy'] },
  when: {
    'rate.limited': 'more than 30 searches a minute from the address (`Retry-After`)',
    'input.invalid': `\`field\` \`q\`: missing, empty, only whitespace, over ${maxSearchLength} characters, or over ${maxSearchTerms} terms; \`field\` \`page\`: not an integer or outside 0–${maxFeedPage}`,
    'user.not_found': '`user` names no public account',
    'search.busy': 'the search line is full, or the search waited 2 s in it (`Retry-After: 2`)',
  },
} satisfies Operation;
