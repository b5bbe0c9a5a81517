// "/e/{pid}": the thread as the server draws it (markup/thread.js), with the cards' actions and,
// for a logged-in reader, the reply form in place of the way to log in.
import * as api from '../api.js';
import { h } from '../dom.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { entryTitle } from '../titles.js';
import { loadTallies } from '../votes.js';
import { composer } from '../components/composer.js';
import { enhanceCard, enhanceCards } from '../components/entry.js';
import { shownPids } from '../markup/entry.js';
import { threadMarkup } from '../markup/thread.js';

/** @import { DrawnView } from '../router.js' */

/** @param {Api.Entry} entry */
function replyBox(entry) {
  return h(
    'section',
    { class: 'card write', 'aria-labelledby': 'reply-heading' },
    h('h2', { id: 'reply-heading' }, 'Antwort schreiben'),
    composer({ replyTo: entry.pid, onPosted: () => refresh() }),
  );
}

/** @type {DrawnView} */
export const threadView = {
  async load({ params }) {
    /** @type {Api.Thread} */
    const thread = await api.get(`/api/entry/${params[1]}/thread`);
    const { entry, replies } = thread;
    const tallies = await loadTallies(shownPids([entry, ...replies]));
    return {
      title: entryTitle(entry),
      markup: () => threadMarkup(thread, tallies),
      enhance(view) {
        const own = view.querySelector(`:scope > article#e${entry.pid}`);
        if (own instanceof HTMLElement) enhanceCard(own, entry, { refresh, onOwnPage: true });
        const list = view.querySelector(':scope > .replies');
        if (list) enhanceCards(list, replies, { refresh });
        if (me() && !entry.deleted) view.querySelector(':scope > .login-offer')?.replaceWith(replyBox(entry));
      },
    };
  },
};
