// "/modlog": the public moderation log, newest first, 50 a page. It names no moderator: the board
// speaks as "die Moderation". Moderators can undo a removal from here.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { dateTime } from '../format.js';
import { modlogPageSize } from '../limits.js';
import { modlogReason, modlogSentence } from '../modlog-words.js';
import { isModerator } from '../session.js';
import { timeAgo } from '../components/entry.js';
import { isWaiting, setWaiting } from '../components/form.js';
import { pageFromQuery, pager } from '../markup/pager.js';

/** @import { ViewContext } from '../router.js' */

/**
 * A sentence of the log (modlog-words.js) with its links.
 * @param {Api.ModlogRow} row
 */
function sentence(row) {
  return modlogSentence(row, dateTime).map((part) => {
    if (typeof part === 'string') return part;
    if ('entry' in part) return h('a', { href: `/e/${part.entry}` }, `Beitrag #${part.entry}`);
    return h('a', { href: `/u/${encodeURIComponent(part.user)}` }, part.user);
  });
}

/**
 * For moderators: a removal can be undone from its log line (409 when it was undone already).
 * @param {Api.ModlogRow} row
 */
function restoreButton(row) {
  const button = h('button', { type: 'button', class: 'small-button' }, 'Wiederherstellen');
  const message = h('span', { class: 'muted small', role: 'status' });
  button.addEventListener('click', async () => {
    if (isWaiting(button)) return;
    setWaiting(button, true);
    try {
      await api.post(`/api/mod/entry/${row.pid}/restore`);
      message.textContent = 'Wiederhergestellt.';
      button.remove();
    } catch (err) {
      message.textContent = /** @type {Error} */ (err).message;
      setWaiting(button, false);
    }
  });
  return h('span', { class: 'modlog-tools' }, button, ' ', message);
}

/** @param {Api.ModlogRow} row */
function logRow(row) {
  const reason = modlogReason(row);
  return h(
    'li',
    { class: 'modlog-row' },
    h('p', { class: 'modlog-what' }, sentence(row)),
    reason ? h('p', { class: 'modlog-reason' }, 'Grund: ', `„${reason}“`) : null,
    h(
      'p',
      { class: 'muted small' },
      timeAgo(row.created_at),
      row.action === 'remove' && isModerator() ? [' · ', restoreButton(row)] : null,
    ),
  );
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function modlogView(root, { query }) {
  const page = pageFromQuery(query);
  /** @type {Api.ModlogRow[]} */
  const rows = await api.get(`/api/modlog/${page}`);
  add(
    root,
    h('h1', {}, page ? `Moderationsprotokoll, Seite ${page + 1}` : 'Moderationsprotokoll'),
    h(
      'p',
      { class: 'muted' },
      'Jede Entscheidung der Moderation mit ihrem Grund, die neueste zuerst. Hier spricht „die Moderation“: einzelne Namen stehen nicht dabei.',
    ),
    rows.length
      ? h('ol', { class: 'modlog', 'aria-label': 'Entscheidungen' }, rows.map(logRow))
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Entscheidungen.'),
    pager('/modlog', page, rows.length, modlogPageSize),
  );
  return page ? `Moderationsprotokoll, Seite ${page + 1}` : 'Moderationsprotokoll';
}
