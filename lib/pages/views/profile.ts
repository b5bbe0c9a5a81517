import type { User } from '../../accounts/users.ts';
import type { Db } from '../../db/db.ts';
import { readUserFeedPage } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage } from '../../product.ts';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { activeBanUntil, permanentBan } from '../../accounts/bans.ts';
import { userShareHead } from '../share.ts';
import { avatarOf, entryCard, pager, userHref } from './entry.ts';
import { germanDate, germanDateTime, isoTime } from '../../text/german.ts';
import { emptyList, pagedLinks, talliesOf, view } from './lists.ts';

/** "Dieses Konto ist gesperrt bis <time>…</time>." for a ban in force (banText in web/static/components/mod-actions.js). */
function banNote(until: number): Html {
  const ban =
    until === permanentBan
      ? 'dauerhaft gesperrt'
      : html`gesperrt bis <time datetime="${isoTime(until)}">${germanDateTime(until)}</time>`;
  return html`<p class="ban-note">Dieses Konto ist ${ban}.</p>`;
}

/**
 * "/u/{username}": avatar, member since, a ban in force and the user's live entries, paged
 * (web/static/views/profile.js). A banned account's page is drawn for every request and never
 * kept (`fresh`): its ban ends by the clock, which no write tells the response cache.
 */
export function profilePage(db: Db, origin: string, user: User, page: number, now: number): PageView {
  const until = activeBanUntil(user, now);
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
    fresh: until !== 0,
    main: view(
      html`<header class="profile-head">${avatarOf(user.username, user.avatar, 'large')}<div><h1>${user.username}</h1><p class="muted">Mitglied seit ${germanDate(user.created_at)}</p>${
        until ? banNote(until) : null
      }</div></header>`,
      html`<h2>Beiträge</h2>`,
      entries.length
        ? html`<ul class="entry-list">${entries.map((entry) => html`<li>${entryCard(entry, tallies, { replyContext: true })}</li>`)}</ul>`
        : emptyList(page, 'Noch keine Beiträge.'),
      pager(base, page, entries.length, feedPageSize, maxFeedPage) ?? html``,
    ),
  };
}
