// "/suche?q=…": entries that hold every word of the search, newest first, the words marked, paged.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { refresh } from '../router.js';
import { entryWithLatest } from '../components/entry.js';
import { markWords, searchWords } from '../components/highlight.js';
import { pageFromQuery, pager } from '../markup/pager.js';
import { maxSearchLength } from '../limits.js';

/** @import { ViewContext } from '../router.js' */

/**
 * The search form (the page's own; the header has the short one).
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
 * What to try when nothing matched: the rules of the search in two lines, and a way out of the author filter.
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
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function searchView(root, { query }) {
  const q = query.get('q') ?? '';
  const user = query.get('user') ?? '';
  const page = pageFromQuery(query);
  add(root, h('h1', {}, q.trim() ? `Suche: ${q}` : 'Suche'), searchForm(q, user));
  if (!q.trim()) {
    add(root, h('p', { class: 'note' }, 'Gesucht wird in allen Beiträgen, auch in Teilen zusammengesetzter Wörter.'));
    return 'Suche';
  }
  const params = new URLSearchParams({ q, ...(user ? { user } : {}) });
  /** @type {Api.EntryWithLatest[]} */
  const entries = await api.get(`/api/search/${page}?${params}`);
  const list = h(
    'ul',
    { class: 'entry-list search-results', 'aria-label': 'Suchergebnisse' },
    entries.map((entry) => h('li', {}, entryWithLatest(entry, { refresh }))),
  );
  for (const text of list.querySelectorAll('.entry-text')) markWords(text, searchWords(q));
  add(
    root,
    user
      ? h(
          'p',
          { class: 'note' },
          `Nur Beiträge von ${user}. `,
          h('a', { href: `/suche?q=${encodeURIComponent(q)}` }, 'Alle durchsuchen'),
        )
      : null,
    entries.length
      ? list
      : page
        ? h('p', { class: 'empty' }, 'Auf dieser Seite ist nichts mehr.')
        : emptyState(q, user),
    pager(`/suche?${params}`, page, entries.length),
  );
  return page ? `Suche: ${q}, Seite ${page + 1}` : `Suche: ${q}`;
}
