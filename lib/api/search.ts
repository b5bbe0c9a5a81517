import type { Ctx } from '../http/context.ts';
import { ApiError, invalidField } from '../http/errors.ts';
import { codePoints, integerParam } from '../http/fields.ts';
import { fieldMessages } from '../messages.ts';
import { searchExpression } from '../search/query.ts';
import { maxFeedPage, maxSearchLength } from '../limits/product.ts';
import { searchEntries } from '../search/search.ts';
import { findUserByName } from '../accounts/users.ts';

/** GET /api/search/{page}?q=…&user=…: served from the response cache (lib/http/response-cache.ts). */
export function search(ctx: Ctx) {
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  const { db } = ctx.app;
  const username = ctx.url.searchParams.get('user') ?? '';
  const author = username ? findUserByName(db, username) : undefined;
  if (username && !author) throw new ApiError(404, 'user.not_found');
  const q = ctx.url.searchParams.get('q') ?? '';
  if (!q.trim() || codePoints(q) > maxSearchLength) throw invalidField('q', fieldMessages.searchQuery);
  const expression = searchExpression(q);
  if (!expression) return []; // only characters that no word is made of
  return db.responses.search(`${author?.uid ?? ''}\n${page}\n${expression}`, () =>
    searchEntries(db, expression, author?.uid, page),
  );
}
