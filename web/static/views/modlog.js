// "/modlog": the public moderation log, newest first, 50 a page. It names no moderator: the board
// speaks as "die Moderation". Moderators can undo a removal from here.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { modlogPageSize } from '../limits.js';
import { isModerator } from '../session.js';
import { timeAgo } from '../components/entry.js';
import { isWaiting, setWaiting } from '../components/form.js';
import { banText } from '../components/mod-actions.js';
import { pageFromQuery, pager } from '../components/pager.js';

/** @import { ViewContext } from '../router.js' */

/** @param {string} username */
function userLink(username) {
  return username ? h('a', { href: `/u/${encodeURIComponent(username)}` }, username) : 'einem gelöschten Konto';
}

/** @param {Api.ModlogRow} row */
function entryLink(row) {
  return [
    h('a', { href: `/e/${row.pid}` }, `Beitrag #${row.pid}`),
    row.username ? [' von ', userLink(row.username)] : null,
  ];
}

/**
 * What happened, as a German sentence with links.
 * @param {Api.ModlogRow} row
 */
function sentence(row) {
  switch (row.action) {
    case 'remove':
      return [entryLink(row), ' entfernt'];
    case 'restore':
      return [entryLink(row), ' wiederhergestellt'];
    case 'dismiss':
      return ['Meldungen zu ', entryLink(row), ' verworfen'];
    case 'ban':
      return [row.username ? userLink(row.username) : 'Ein Konto', ` ${banText(row.until)}`];
    case 'unban':
      return ['Sperre von ', userLink(row.username), ' aufgehoben'];
    case 'avatar_remove':
      return ['Avatar von ', userLink(row.username), ' entfernt'];
    case 'approve':
      return ['Konto ', row.username || 'eines Antrags', ' freigeschaltet'];
    case 'reject':
      return ['Antrag von ', row.username || 'einem Konto', ' abgelehnt'];
    case 'registration':
      return ['Registrierung umgestellt'];
    default:
      return [row.action];
  }
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
  return h(
    'li',
    { class: 'modlog-row' },
    h('p', { class: 'modlog-what' }, sentence(row)),
    row.reason ? h('p', { class: 'modlog-reason' }, 'Grund: ', `„${row.reason}“`) : null,
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
