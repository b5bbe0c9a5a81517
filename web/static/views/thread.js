// "/e/{pid}": the entry with its ancestors as a breadcrumb, a reply form and its replies.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { excerpt } from '../format.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { composer } from '../components/composer.js';
import { entryCard, entryWithLatest } from '../components/entry.js';

function breadcrumb(ancestors, entry) {
  return h('nav', { class: 'breadcrumb', 'aria-label': 'Verlauf' },
    h('ol', {},
      h('li', {}, h('a', { href: '/' }, 'Neueste')),
      ancestors.map((a) => h('li', {}, h('a', { href: `/e/${a.pid}` }, excerpt(a)))),
      h('li', { 'aria-current': 'page' }, excerpt(entry))));
}

function replyBox(entry) {
  if (entry.deleted) return h('p', { class: 'note' }, `Auf einen ${entry.removed ? 'entfernten' : 'gelöschten'} Beitrag kann man nicht antworten.`);
  if (!me()) return h('p', { class: 'note' }, 'Zum Antworten bitte ', h('a', { href: `/login?weiter=/e/${entry.pid}` }, 'anmelden'), '.');
  return h('section', { class: 'card write', 'aria-labelledby': 'reply-heading' },
    h('h2', { id: 'reply-heading' }, 'Antwort schreiben'),
    composer({ replyTo: entry.pid, onPosted: () => refresh() }));
}

export async function threadView(root, { params }) {
  const { entry, ancestors, replies } = await api.get(`/api/entry/${params[1]}/thread`);
  const who = entry.username || 'einem gelöschten Konto';
  add(root, 
    breadcrumb(ancestors, entry),
    h('h1', {}, entry.reply_to ? `Antwort von ${who}` : `Thema von ${who}`),
    entryCard(entry, { refresh, hideReply: true }),
    h('section', { class: 'replies', 'aria-labelledby': 'replies-heading' },
      h('h2', { id: 'replies-heading' }, replies.length === 1 ? '1 Antwort' : `${replies.length} Antworten`),
      replies.length
        ? h('ul', { class: 'entry-list' }, replies.map((reply) => h('li', {}, entryWithLatest(reply, { refresh }))))
        : h('p', { class: 'empty' }, 'Noch keine Antworten.'),
      entry.reply_count > replies.length ? h('p', { class: 'note' }, `Gezeigt werden die ${replies.length} zuletzt aktiven Antworten.`) : null),
    replyBox(entry));
  return excerpt(entry);
}
