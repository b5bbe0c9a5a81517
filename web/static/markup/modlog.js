// "/modlog": the public moderation log, newest first, a page at a time. It names no moderator: the
// board speaks as "die Moderation".
import { h } from '../dom.js';
import { boardDateTime } from '../format.js';
import { maxModlogPage, modlogPageSize } from '../limits.js';
import { modlogReason, modlogSentence } from '../modlog-words.js';
import { timeOf, userHref } from './entry.js';
import { pager } from './pager.js';

/**
 * "Moderationsprotokoll", and the page after the first.
 * @param {number} page
 */
export function modlogTitle(page) {
  return page ? `Moderationsprotokoll, Seite ${page + 1}` : 'Moderationsprotokoll';
}

/**
 * A sentence of the log (modlog-words.js) with its links.
 * @param {Api.ModlogRow} row
 */
function sentence(row) {
  return modlogSentence(row, boardDateTime).map((part) => {
    if (typeof part === 'string') return part;
    if ('entry' in part) return h('a', { href: `/e/${part.entry}` }, `Beitrag #${part.entry}`);
    return h('a', { href: userHref(part.user) }, part.user);
  });
}

/**
 * A decision, its reason and when; the browser adds a moderator's way to undo a removal to the last line.
 * @param {Api.ModlogRow} row
 */
function logRow(row) {
  const reason = modlogReason(row);
  return h(
    'li',
    { class: 'modlog-row' },
    h('p', { class: 'modlog-what' }, sentence(row)),
    reason ? h('p', { class: 'modlog-reason' }, `Grund: „${reason}“`) : null,
    h('p', { class: 'muted small' }, timeOf(row.created_at)),
  );
}

/**
 * Page `page` of the log.
 * @param {number} page
 * @param {readonly Api.ModlogRow[]} rows
 */
export function modlogMarkup(page, rows) {
  return h(
    'div',
    { class: 'view' },
    h('h1', {}, modlogTitle(page)),
    h(
      'p',
      { class: 'muted' },
      'Jede Entscheidung der Moderation mit ihrem Grund, die neueste zuerst. Hier spricht „die Moderation“: einzelne Namen stehen nicht dabei.',
    ),
    rows.length
      ? h('ol', { class: 'modlog', 'aria-label': 'Entscheidungen' }, rows.map(logRow))
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Entscheidungen.'),
    pager('/modlog', page, rows.length, modlogPageSize, maxModlogPage),
  );
}
