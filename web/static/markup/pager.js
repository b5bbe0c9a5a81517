// "Neuere" / "Ältere" links for paged lists; pages are ?seite=1… in the address (API page + 1).
import { h } from '../dom.js';
import { feedPageSize, maxFeedPage } from '../limits.js';

/**
 * The API page (0–100) from ?seite= (1–101); anything else is the first page.
 * @param {URLSearchParams} query
 */
export function pageFromQuery(query) {
  const n = Number(query.get('seite'));
  return Number.isInteger(n) && n >= 1 && n <= maxFeedPage + 1 ? n - 1 : 0;
}

/**
 * @param {string} basePath
 * @param {number} page
 */
function pageHref(basePath, page) {
  return page === 0 ? basePath : `${basePath}${basePath.includes('?') ? '&' : '?'}seite=${page + 1}`; // the search page has a query of its own
}

/**
 * A full page means there may be more.
 * @param {string} basePath
 * @param {number} page the API page, 0–100
 * @param {number} count how many items this page shows
 * @param {number} [pageSize]
 */
export function pager(basePath, page, count, pageSize = feedPageSize) {
  const newer = page > 0 ? h('a', { href: pageHref(basePath, page - 1), rel: 'prev' }, '← Neuere') : null;
  const older =
    count >= pageSize && page < maxFeedPage
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
