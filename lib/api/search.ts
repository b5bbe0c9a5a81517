import type { Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { codePoints, integerParam } from '../http/fields.ts';
import { maxFeedPage } from '../entries/reads.ts';
import { fieldMessages } from '../messages.ts';
import { maxQueryLength, searchExpression } from '../search/query.ts';
import { searchEntries } from '../search/search.ts';
import { findUserByName } from '../accounts/users.ts';
import { arrayOf, field, json, ref, requiredField, string, type Operation } from '../openapi/kit.ts';

/** GET /api/search/{page}?q=…&user=…: served from the response cache (lib/http/response-cache.ts). */
export function search(ctx: Ctx<'page'>) {
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  const { db } = ctx.app;
  const username = ctx.url.searchParams.get('user') ?? '';
  const author = username ? findUserByName(db, username) : undefined;
  if (username && !author) throw new ApiError(404, 'user.not_found');
  const q = ctx.url.searchParams.get('q') ?? '';
  if (!q.trim() || codePoints(q) > maxQueryLength) throw invalidField('q', fieldMessages.searchQuery);
  const expression = searchExpression(q);
  if (!expression) return []; // only characters that no word is made of
  return db.responses.search(`${author?.uid ?? ''}\n${page}\n${expression}`, () =>
    searchEntries(db, expression, author?.uid, page),
  );
}
search.doc = {
  id: 'search',
  summary: 'Live entries holding every word of q, newest first, 20 a page',
  description:
    'q is taken literally (a pair of double quotes makes a phrase); a word of 3+ characters finds the compounds that contain it, words of 1–2 characters match whole words.',
  query: {
    q: requiredField(
      'what to look for, 1–200 characters, not only whitespace',
      string(undefined, { minLength: 1, maxLength: 200 }),
    ),
    user: field("a username: search that author's entries only"),
  },
  ok: json('the matching entries, each with latest', arrayOf(ref('EntryWithLatest'), 20)),
  errors: { 400: ['input.invalid'], 404: ['user.not_found'] },
} satisfies Operation;
