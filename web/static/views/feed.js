// "/": the newest threads as the server draws them (markup/feed.js), with the cards' actions and,
// for a logged-in reader, the folded form for a new thread in place of the way to log in.
import * as api from '../api.js';
import { h, uid } from '../dom.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { loadTallies } from '../votes.js';
import { composer } from '../components/composer.js';
import { enhanceCards } from '../components/entry.js';
import { shownPids } from '../markup/entry.js';
import { feedMarkup, feedTitle } from '../markup/feed.js';
import { pageFromQuery } from '../markup/pager.js';

/** @import { DrawnView } from '../router.js' */

/**
 * The box to start a thread. Folded by default: most visits are for reading, and on a phone the
 * form would fill the screen. The heading holds the button that unfolds it, not the other way
 * round as in a <summary>: a button's content is presentational, so a heading inside one is no
 * heading to many screen readers.
 * @param {(created: Api.Entry) => void} onPosted
 */
function writeBox(onPosted) {
  const panel = h('div', { class: 'write-panel', id: uid('write'), hidden: true }, composer({ onPosted }));
  const toggle = h(
    'button',
    { type: 'button', class: 'write-toggle', 'aria-expanded': 'false', 'aria-controls': panel.id },
    h('span', { class: 'write-mark', 'aria-hidden': 'true' }),
    'Neues Thema schreiben',
  );
  toggle.addEventListener('click', () => {
    panel.hidden = !panel.hidden;
    toggle.setAttribute('aria-expanded', String(!panel.hidden));
  });
  return h('div', { class: 'card write write-new' }, h('h2', {}, toggle), panel);
}

/** @type {DrawnView} */
export const feedView = {
  async load({ query }) {
    const page = pageFromQuery(query);
    /** @type {Api.EntryWithLatest[]} */
    const entries = await api.get(`/api/entry/feed/${page}`);
    const tallies = await loadTallies(shownPids(entries));
    return {
      title: feedTitle(page),
      markup: () => feedMarkup(page, entries, tallies),
      enhance(view) {
        if (me()) view.querySelector(':scope > .login-offer')?.replaceWith(writeBox(() => refresh()));
        enhanceCards(view, entries, { refresh });
      },
    };
  },
};
