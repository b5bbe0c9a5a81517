import type { User } from '../../accounts/users.ts';
import type { Db } from '../../db/db.ts';
import { readUserFeedPage } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage } from '../../limits/product.ts';
import { html } from '../html.ts';
import type { PageView } from '../layout.ts';
import { userShareHead } from '../share.ts';
import { avatarOf, entryCard, pager, userHref } from './entry.ts';
import { germanDate } from './format.ts';
import { emptyList, pagedLinks, talliesOf, view } from './lists.ts';

/**
 * "/u/{username}": avatar, member since and the user's live entries, paged
 * (web/static/views/profile.js). A ban is left to the front end: it ends by the clock, which no
 * write tells the response cache.
 */
export function profilePage(db: Db, origin: string, user: User, page: number): PageView {
  const { entries } = readUserFeedPage(db, user.uid, page);
  const tallies = talliesOf(db, entries);
  const base = userHref(user.username);
  const hasNext = entries.length >= feedPageSize && page < maxFeedPage;
  const links = pagedLinks(origin, base, page, hasNext);
  return {
    status: 200,
    title: page ? `${user.username}, Seite ${page + 1}` : user.username,
    // The share tags name the profile itself; later pages are plain pages of the list.
    head: page ? undefined : userShareHead(origin, user, origin + base),
    ...links,
    main: view(
      html`<header class="profile-head">${avatarOf(user.username, user.avatar, 'large')}<div><h1>${user.username}</h1><p class="muted">Mitglied seit ${germanDate(user.created_at)}</p></div></header>`,
      html`<h2>Beiträge</h2>`,
      entries.length
        ? html`<ul class="entry-list">${entries.map((entry) => html`<li>${entryCard(entry, tallies, { replyContext: true })}</li>`)}</ul>`
        : emptyList(page, 'Noch keine Beiträge.'),
      pager(base, page, entries.length, feedPageSize, maxFeedPage) ?? html``,
    ),
  };
}
