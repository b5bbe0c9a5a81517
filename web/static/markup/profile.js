// "/u/{username}": avatar, member since, a ban in force, and the user's live entries, paged.
import { h } from '../dom.js';
import { boardDate, boardDateTime, isoTime } from '../format.js';
import { feedPageSize, maxFeedPage } from '../limits.js';
import { avatar } from './avatar.js';
import { card, userHref } from './entry.js';
import { pager } from './pager.js';

/** @import { Tallies } from './entry.js' */

/**
 * The name, and the page after the first.
 * @param {string} username
 * @param {number} page
 */
export function profileTitle(username, page) {
  return page ? `${username}, Seite ${page + 1}` : username;
}

/**
 * "Dieses Konto ist gesperrt bis <time>…</time>." for a ban in force; -1 is for good.
 * @param {number} until
 */
function banNote(until) {
  const ban =
    until === -1
      ? 'dauerhaft gesperrt'
      : ['gesperrt bis ', h('time', { datetime: isoTime(until) }, boardDateTime(until))];
  return h('p', { class: 'ban-note' }, 'Dieses Konto ist ', ban, '.');
}

/**
 * Page `page` of the profile: `user` as GET /api/u/{username}/info answers (banned_until only while
 * a ban is in force), `entries` as its feed. The browser adds the reader's tools under the name.
 * @param {Api.PublicUser} user
 * @param {number} page
 * @param {readonly Api.Entry[]} entries
 * @param {Tallies} tallies
 */
export function profileMarkup(user, page, entries, tallies) {
  return h(
    'div',
    { class: 'view' },
    h(
      'header',
      { class: 'profile-head' },
      avatar(user.username, user.avatar, 'large'),
      h(
        'div',
        {},
        h('h1', {}, user.username),
        h('p', { class: 'muted' }, `Mitglied seit ${boardDate(user.created_at)}`),
        user.banned_until ? banNote(user.banned_until) : null,
        user.fediverse
          ? h(
              'p',
              { class: 'muted' },
              'Aus dem Fediverse (Mastodon, Lemmy …) folgen: ',
              h('strong', {}, user.fediverse),
            )
          : null,
      ),
    ),
    h('h2', {}, 'Beiträge'),
    entries.length
      ? h(
          'ul',
          { class: 'entry-list' },
          entries.map((entry) => h('li', {}, card(entry, tallies, { replyContext: true }))),
        )
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Beiträge.'),
    pager(userHref(user.username), page, entries.length, feedPageSize, maxFeedPage),
  );
}
