// "/": the newest threads, each with its latest reply, the way to write one, and paging.
import { h } from '../dom.js';
import { feedPageSize, maxFeedPage } from '../limits.js';
import { cardWithLatest } from './entry.js';
import { loginOffer } from './login-offer.js';
import { pager } from './pager.js';

/** @import { Tallies } from './entry.js' */

/**
 * "Neueste Themen", and the page after the first.
 * @param {number} page
 */
export function feedTitle(page) {
  return page ? `Neueste Themen, Seite ${page + 1}` : 'Neueste Themen';
}

/**
 * Page `page` of the threads; the first has the way to log in and write (the browser puts the
 * form there for a reader who is logged in).
 * @param {number} page
 * @param {readonly Api.EntryWithLatest[]} entries
 * @param {Tallies} tallies
 */
export function feedMarkup(page, entries, tallies) {
  return h(
    'div',
    { class: 'view' },
    h('h1', {}, feedTitle(page)),
    page === 0 ? loginOffer('Schreiben', '/') : null,
    entries.length
      ? h(
          'ul',
          { class: 'entry-list', 'aria-label': 'Themen' },
          entries.map((entry) => h('li', {}, cardWithLatest(entry, tallies))),
        )
      : h(
          'p',
          { class: 'empty' },
          page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Beiträge. Schreib den ersten!',
        ),
    pager('/', page, entries.length, feedPageSize, maxFeedPage),
    page > 0 && entries.length === 0 ? h('p', {}, h('a', { href: '/' }, 'Zur ersten Seite')) : null,
  );
}
