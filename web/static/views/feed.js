// "/": the newest threads, each with its latest reply, a form for a new thread, and paging.
import * as api from '../api.js';
import { add, h, uid } from '../dom.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { composer } from '../components/composer.js';
import { entryWithLatest } from '../components/entry.js';
import { loginOffer } from '../components/login-offer.js';
import { pageFromQuery, pager } from '../markup/pager.js';

/** @import { ViewContext } from '../router.js' */

/**
 * The box to start a thread, or how to get one. Folded by default: most visits are for reading,
 * and on a phone the form would fill the screen. The heading holds the button that unfolds it,
 * not the other way round as in a <summary>: a button's content is presentational, so a heading
 * inside one is no heading to many screen readers.
 * @param {(created: Api.Entry) => void} onPosted
 */
export function writeBox(onPosted) {
  if (!me()) {
    return loginOffer('Schreiben');
  }
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

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function feedView(root, { query }) {
  const page = pageFromQuery(query);
  /** @type {Api.EntryWithLatest[]} */
  const entries = await api.get(`/api/entry/feed/${page}`);
  add(
    root,
    h('h1', {}, page ? `Neueste Themen, Seite ${page + 1}` : 'Neueste Themen'),
    page === 0 ? writeBox(() => refresh()) : null,
    entries.length
      ? h(
          'ul',
          { class: 'entry-list', 'aria-label': 'Themen' },
          entries.map((entry) => h('li', {}, entryWithLatest(entry, { refresh }))),
        )
      : h(
          'p',
          { class: 'empty' },
          page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Beiträge. Schreib den ersten!',
        ),
    pager('/', page, entries.length),
  );
  if (page > 0 && entries.length === 0) add(root, h('p', {}, h('a', { href: '/' }, 'Zur ersten Seite')));
  return page ? `Neueste Themen, Seite ${page + 1}` : 'Neueste Themen';
}
