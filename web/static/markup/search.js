// "/suche?q=…": the search form, and the entries that hold every word of the search, newest first,
// the words marked, paged; or why the search was refused.
import { h } from '../dom.js';
import { feedPageSize, maxFeedPage, maxSearchLength } from '../limits.js';
import { cardWithLatest } from './entry.js';
import { pager } from './pager.js';

/** @import { Tallies } from './entry.js' */

/**
 * What the address asks: the words, an author (a name, or ""), the API page.
 * @typedef {{ q: string, user: string, page: number }} SearchAsked
 */

/**
 * What the search gave: the matches (mark: the pattern of its words, as the server matched them),
 * or the API's message when it refused.
 * @typedef {{ entries: readonly Api.EntryWithLatest[], tallies: Tallies, mark: RegExp | null | undefined }
 *   | { message: string }} SearchFound
 */

/**
 * "Suche", or "Suche: Kaffee" and its later pages.
 * @param {SearchAsked} asked
 */
export function searchTitle({ q, page }) {
  if (!q.trim()) return 'Suche';
  return page ? `Suche: ${q}, Seite ${page + 1}` : `Suche: ${q}`;
}

/**
 * The page's own search form (the header has the short one): a plain GET form, so it works without scripts.
 * @param {string} q
 * @param {string} user
 */
function searchForm(q, user) {
  return h(
    'form',
    { class: 'search-form', role: 'search', action: '/suche', method: 'get' },
    h('label', { for: 'search-page-q' }, 'Suchbegriff'),
    h('input', {
      id: 'search-page-q',
      name: 'q',
      type: 'search',
      value: q,
      maxlength: maxSearchLength,
      required: true,
    }),
    user ? h('input', { type: 'hidden', name: 'user', value: user }) : null,
    h('button', { type: 'submit' }, 'Suchen'),
  );
}

/**
 * What to try when nothing matched: the rules of the search, and a way out of the author filter.
 * @param {string} q
 * @param {string} user
 */
function emptyState(q, user) {
  return h(
    'div',
    { class: 'empty search-empty' },
    h('p', {}, `Nichts gefunden für „${q}“${user ? ` in den Beiträgen von ${user}` : ''}.`),
    h(
      'ul',
      {},
      h('li', {}, 'Ein Wortteil genügt: „kraftwerk“ findet auch „Balkonkraftwerke“.'),
      h('li', {}, 'Jedes Wort muss vorkommen: weniger Wörter finden mehr.'),
      h('li', {}, 'Anführungszeichen suchen genau diese Wortfolge: „"gute Nacht"“.'),
    ),
    user ? h('p', {}, h('a', { href: `/suche?q=${encodeURIComponent(q)}` }, 'In allen Beiträgen suchen')) : null,
  );
}

/**
 * The matches, the list's empty state and its pages.
 * @param {SearchAsked} asked
 * @param {readonly Api.EntryWithLatest[]} entries
 * @param {Tallies} tallies
 * @param {RegExp | null | undefined} mark
 */
function results({ q, user, page }, entries, tallies, mark) {
  const params = new URLSearchParams({ q, ...(user ? { user } : {}) });
  return [
    user
      ? h(
          'p',
          { class: 'note' },
          `Nur Beiträge von ${user}. `,
          h('a', { href: `/suche?q=${encodeURIComponent(q)}` }, 'Alle durchsuchen'),
        )
      : null,
    entries.length
      ? h(
          'ul',
          { class: 'entry-list search-results', 'aria-label': 'Suchergebnisse' },
          entries.map((entry) => h('li', {}, cardWithLatest(entry, tallies, { mark }))),
        )
      : page
        ? h('p', { class: 'empty' }, 'Auf dieser Seite ist nichts mehr.')
        : emptyState(q, user),
    pager(`/suche?${params}`, page, entries.length, feedPageSize, maxFeedPage),
  ];
}

/**
 * The search page: without `found` the form and what the search does (nothing asked yet).
 * @param {SearchAsked} asked
 * @param {SearchFound} [found]
 */
export function searchMarkup(asked, found) {
  return h(
    'div',
    { class: 'view' },
    h('h1', {}, asked.q.trim() ? `Suche: ${asked.q}` : 'Suche'),
    searchForm(asked.q, asked.user),
    !found
      ? h('p', { class: 'note' }, 'Gesucht wird in allen Beiträgen, auch in Teilen zusammengesetzter Wörter.')
      : 'message' in found
        ? h('p', { class: 'note' }, found.message)
        : results(asked, found.entries, found.tallies, found.mark),
  );
}
