// "Neuere" / "Ältere" links for paged lists; pages are ?seite=1… in the address (API page + 1).
import { h } from '../dom.js';
import { feedPageSize, maxFeedPage } from '../limits.js';

/**
 * The API page (0…max) from ?seite= (1…max+1); anything else is the first page.
 * @param {URLSearchParams} query
 * @param {number} [maxPage]
 */
export function pageFromQuery(query, maxPage = maxFeedPage) {
  const n = Number(query.get('seite'));
  return Number.isInteger(n) && n >= 1 && n <= maxPage + 1 ? n - 1 : 0;
}

/**
 * The address of page `page` of the list at `basePath` (the search page has a query of its own).
 * @param {string} basePath
 * @param {number} page
 */
export function pageHref(basePath, page) {
  return page === 0 ? basePath : `${basePath}${basePath.includes('?') ? '&' : '?'}seite=${page + 1}`;
}

/**
 * The links to the neighbours, rel prev/next; a full page means there may be more.
 * @param {string} basePath
 * @param {number} page the API page, 0…maxPage
 * @param {number} count how many items this page shows
 * @param {number} [pageSize]
 * @param {number} [maxPage]
 */
export function pager(basePath, page, count, pageSize = feedPageSize, maxPage = maxFeedPage) {
  const newer = page > 0 ? h('a', { href: pageHref(basePath, page - 1), rel: 'prev' }, '← Neuere') : null;
  const older =
    count >= pageSize && page < maxPage
      ? h('a', { href: pageHref(basePath, page + 1), rel: 'next' }, 'Ältere →')
      : null;
  if (!newer && !older) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Seiten' },
    newer ?? h('span'),
    h('span', { class: 'pager-page' }, `Seite ${page + 1}`),
    older ?? h('span'),
  );
}
