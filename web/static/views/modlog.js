// "/modlog": the public moderation log as the server draws it (markup/modlog.js); moderators can
// undo a removal from its line.
import * as api from '../api.js';
import { h } from '../dom.js';
import { maxModlogPage } from '../limits.js';
import { isModerator } from '../session.js';
import { isWaiting, setWaiting } from '../components/form.js';
import { pageFromQuery } from '../markup/pager.js';
import { modlogMarkup, modlogTitle } from '../markup/modlog.js';

/** @import { DrawnView } from '../router.js' */

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

/** @type {DrawnView} */
export const modlogView = {
  async load({ query }) {
    const page = pageFromQuery(query, maxModlogPage);
    /** @type {Api.ModlogRow[]} */
    const rows = await api.get(`/api/modlog/${page}`);
    return {
      title: modlogTitle(page),
      markup: () => modlogMarkup(page, rows),
      enhance(view) {
        if (!isModerator()) return;
        const lines = view.querySelectorAll(':scope > .modlog > .modlog-row > p.muted');
        rows.forEach((row, i) => {
          if (row.action === 'remove') lines[i]?.append(' · ', restoreButton(row));
        });
      },
    };
  },
};
