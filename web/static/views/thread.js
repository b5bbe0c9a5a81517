// "/e/{pid}": the entry with its ancestors as a breadcrumb, a reply form and its replies.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { excerpt } from '../format.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { entryTitle } from '../titles.js';
import { composer } from '../components/composer.js';
import { entryCard, entryWithLatest } from '../components/entry.js';
import { loginOffer } from '../components/login-offer.js';

/** @import { ViewContext } from '../router.js' */

/**
 * The path from the root; a deep entry's thread leaves out the middle ("… N weitere", linked to the next one up).
 * @param {Api.Entry[]} ancestors
 * @param {Api.Entry} entry
 * @param {number} [skipped]
 */
function breadcrumb(ancestors, entry, skipped = 0) {
  /** @param {Api.Entry} a */
  const crumb = (a) => h('li', {}, h('a', { href: `/e/${a.pid}` }, excerpt(a)));
  const [root, ...near] = ancestors;
  return h(
    'nav',
    { class: 'breadcrumb', 'aria-label': 'Verlauf' },
    h(
      'ol',
      {},
      h('li', {}, h('a', { href: '/' }, 'Neueste')),
      root ? crumb(root) : null,
      skipped > 0 && near[0]
        ? h('li', {}, h('a', { href: `/e/${near[0].reply_to}` }, `… ${skipped} weitere Beiträge`))
        : null,
      near.map(crumb),
      h('li', { 'aria-current': 'page' }, excerpt(entry)),
    ),
  );
}

/** @param {Api.Entry} entry */
function replyBox(entry) {
  if (entry.deleted)
    return h(
      'p',
      { class: 'note' },
      `Auf einen ${entry.removed ? 'entfernten' : 'gelöschten'} Beitrag kann man nicht antworten.`,
    );
  if (!me()) return loginOffer('Antworten', entry.pid);
  return h(
    'section',
    { class: 'card write', 'aria-labelledby': 'reply-heading' },
    h('h2', { id: 'reply-heading' }, 'Antwort schreiben'),
    composer({ replyTo: entry.pid, onPosted: () => refresh() }),
  );
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function threadView(root, { params }) {
  /** @type {Api.Thread} */
  const { entry, ancestors, ancestors_skipped: skipped, replies } = await api.get(`/api/entry/${params[1]}/thread`);
  const who = entry.username || 'einem gelöschten Konto';
  add(
    root,
    breadcrumb(ancestors, entry, skipped),
    h('h1', {}, entry.reply_to ? `Antwort von ${who}` : `Thema von ${who}`),
    entryCard(entry, { refresh, hideReply: true }),
    h(
      'section',
      { class: 'replies', 'aria-labelledby': 'replies-heading' },
      h('h2', { id: 'replies-heading' }, replies.length === 1 ? '1 Antwort' : `${replies.length} Antworten`),
      replies.length
        ? h(
            'ul',
            { class: 'entry-list' },
            replies.map((reply) => h('li', {}, entryWithLatest(reply, { refresh }))),
          )
        : h('p', { class: 'empty' }, 'Noch keine Antworten.'),
      entry.reply_count > replies.length
        ? h('p', { class: 'note' }, `Gezeigt werden die ${replies.length} zuletzt aktiven Antworten.`)
        : null,
    ),
    replyBox(entry),
  );
  return entryTitle(entry);
}
