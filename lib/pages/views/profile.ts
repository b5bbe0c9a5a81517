import type { User } from '../../accounts/users.ts';
import type { Db } from '../../db/db.ts';
import { readUserFeedPage } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage } from '../../product.ts';
import { drawnHtml } from '../../text/html.ts';
import { userHref } from '../../../web/static/markup/entry.js';
import { profileMarkup, profileTitle } from '../../../web/static/markup/profile.js';
import type { PageView } from '../layout.ts';
import { activeBanUntil } from '../../accounts/bans.ts';
import { userShareHead } from '../share.ts';
import { pagedLinks, talliesOf } from './lists.ts';

/**
 * "/u/{username}" (web/static/markup/profile.js), the account as GET /api/u/{username}/info shows
 * it. A banned account's page is drawn for every request and never kept (`fresh`): its ban ends by
 * the clock, which no write tells the response cache.
 */
export function profilePage(
  db: Db,
  origin: string,
  user: User,
  page: number,
  now: number,
  fediverse?: string,
): PageView {
  const until = activeBanUntil(user, now);
  const { entries } = readUserFeedPage(db, user.uid, page);
  const base = userHref(user.username);
  const hasNext = entries.length >= feedPageSize && page < maxFeedPage;
  const shown = {
    uid: user.uid,
    username: user.username,
    created_at: user.created_at,
    avatar: user.avatar,
    ...(fediverse ? { fediverse } : {}),
  };
  return {
    status: 200,
    title: profileTitle(user.username, page),
    // The share tags name the profile itself; later pages are plain pages of the list.
    head: page ? undefined : userShareHead(origin, user, origin + base),
    ...pagedLinks(origin, base, page, hasNext),
    fresh: until !== 0,
    main: drawnHtml(
      profileMarkup(until ? { ...shown, banned_until: until } : shown, page, entries, talliesOf(db, entries)),
    ),
  };
}
