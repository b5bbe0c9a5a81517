// "/e/{pid}": the ancestors as a breadcrumb, the entry, its most active replies with their latest,
// and the way to reply.
import { h } from '../dom.js';
import { excerpt } from '../format.js';
import { card, cardWithLatest } from './entry.js';
import { loginOffer } from './login-offer.js';

/** @import { Tallies } from './entry.js' */

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

/**
 * The thread. A deleted or removed entry shows only that it is gone (and the moderation's reason),
 * with its replies, and cannot be answered; the server answers its page 410 when nothing live
 * hangs below it.
 * @param {Api.Thread} thread
 * @param {Tallies} tallies
 */
export function threadMarkup(thread, tallies) {
  const { entry, ancestors, ancestors_skipped: skipped, replies } = thread;
  const who = entry.username || 'einem gelöschten Konto';
  return h(
    'div',
    { class: 'view' },
    breadcrumb(ancestors, entry, skipped),
    h('h1', {}, entry.reply_to ? `Antwort von ${who}` : `Thema von ${who}`),
    card(entry, tallies, { onOwnPage: true }),
    h(
      'section',
      { class: 'replies', 'aria-labelledby': 'replies-heading' },
      h('h2', { id: 'replies-heading' }, replies.length === 1 ? '1 Antwort' : `${replies.length} Antworten`),
      replies.length
        ? h(
            'ul',
            { class: 'entry-list' },
            replies.map((reply) => h('li', {}, cardWithLatest(reply, tallies))),
          )
        : h('p', { class: 'empty' }, 'Noch keine Antworten.'),
      entry.reply_count > replies.length
        ? h('p', { class: 'note' }, `Gezeigt werden die ${replies.length} zuletzt aktiven Antworten.`)
        : null,
    ),
    entry.deleted
      ? h(
          'p',
          { class: 'note' },
          `Auf einen ${entry.removed ? 'entfernten' : 'gelöschten'} Beitrag kann man nicht antworten.`,
        )
      : loginOffer('Antworten', `/e/${entry.pid}#e${entry.pid}`),
  );
}
