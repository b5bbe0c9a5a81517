// "/u/{username}": avatar, member since, and the user's entries with paging.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { longDate } from '../format.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { avatar } from '../components/avatar.js';
import { entryCard } from '../components/entry.js';
import { pageFromQuery, pager } from '../components/pager.js';

function decodedName(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function profileView(root, { params, query }) {
  const name = encodeURIComponent(decodedName(params[1]));
  const page = pageFromQuery(query);
  const [user, entries] = await Promise.all([api.get(`/api/u/${name}/info`), api.get(`/api/u/${name}/feed/${page}`)]);
  const own = me()?.uid === user.uid;
  add(root, 
    h('header', { class: 'profile-head' },
      avatar(user.username, user.avatar, 'large'),
      h('div', {},
        h('h1', {}, user.username),
        h('p', { class: 'muted' }, `Mitglied seit ${longDate(user.created_at)}`),
        own ? h('p', {}, h('a', { href: '/settings' }, 'Profil bearbeiten')) : null)),
    h('h2', {}, 'Beiträge'),
    entries.length
      ? h('ul', { class: 'entry-list' }, entries.map((entry) => h('li', {}, entryCard(entry, { refresh, replyContext: true }))))
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Beiträge.'),
    pager(`/u/${name}`, page, entries.length));
  return page ? `${user.username}, Seite ${page + 1}` : user.username;
}
