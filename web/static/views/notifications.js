// "/benachrichtigungen": replies to one's entries, mentions and replies in followed threads, newest first;
// opening marks them read.
import * as api from '../api.js';
import { add, h } from '../dom.js';
import { refresh } from '../router.js';
import { me } from '../session.js';
import { entryCard, timeAgo } from '../components/entry.js';
import { showUnread } from '../components/notify-badge.js';
import { pageFromQuery, pager } from '../markup/pager.js';
import { notificationPageSize } from '../limits.js';

/** @import { ViewContext } from '../router.js' */

/** @type {Record<Api.Notification['kind'], string>} */
// Mirrors kindTexts in lib/push/message.ts (a push says the same).
const kinds = {
  reply: 'hat dir geantwortet',
  mention: 'hat dich erwähnt',
  thread_reply: 'hat in einem Thread geantwortet, dem du folgst',
};

/** @param {Api.Notification} n */
function notificationItem(n) {
  return h(
    'li',
    { class: `notification${n.read ? '' : ' notification-unread'}` },
    h(
      'p',
      { class: 'notification-head' },
      n.read ? null : h('span', { class: 'badge' }, 'neu'),
      ' ',
      h('strong', {}, n.entry.username || 'Ein gelöschtes Konto'),
      ` ${kinds[n.kind] ?? ''} `,
      timeAgo(n.created_at),
    ),
    entryCard(n.entry, { compact: true, replyContext: true, refresh }),
  );
}

/** The private Atom feed: make (or renew) its secret address, or end it. */
function feedBox() {
  const output = h('p', { class: 'feed-url', hidden: true });
  const make = h('button', { type: 'button' }, 'Feed-Adresse erzeugen');
  const end = h('button', { type: 'button', class: 'secondary' }, 'Feed beenden');
  make.addEventListener('click', async () => {
    /** @type {{ url: string }} */
    const { url } = await api.post('/api/user/feed-token');
    output.replaceChildren(
      h('label', { for: 'feed-url' }, 'Deine geheime Feed-Adresse'),
      h('input', { id: 'feed-url', type: 'text', readonly: true, value: url }),
    );
    output.hidden = false;
    make.textContent = 'Neue Feed-Adresse erzeugen';
  });
  end.addEventListener('click', async () => {
    await api.post('/api/user/feed-token/revoke');
    output.replaceChildren(h('span', {}, 'Der Feed ist beendet; die alte Adresse funktioniert nicht mehr.'));
    output.hidden = false;
  });
  return h(
    'details',
    { class: 'card feed-box' },
    h('summary', {}, 'Als Feed abonnieren'),
    h(
      'p',
      { class: 'note' },
      'Ein privater Atom-Feed deiner Benachrichtigungen für einen Feedreader. Wer die Adresse kennt, kann sie lesen: eine neue Adresse oder ein neues Passwort beendet die alte.',
    ),
    h('div', { class: 'actions' }, make, end),
    output,
  );
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function notificationsView(root, { query }) {
  if (!me()) {
    add(
      root,
      h('h1', {}, 'Benachrichtigungen'),
      h(
        'p',
        { class: 'note' },
        'Bitte ',
        h('a', { href: '/login?weiter=/benachrichtigungen' }, 'anmelden'),
        ', um deine Benachrichtigungen zu sehen.',
      ),
    );
    return 'Benachrichtigungen';
  }
  const page = pageFromQuery(query);
  /** @type {Api.Notification[]} */
  const list = await api.get(`/api/user/notifications/${page}`);
  add(
    root,
    h('h1', {}, 'Benachrichtigungen'),
    list.length
      ? h('ul', { class: 'notification-list', 'aria-label': 'Benachrichtigungen' }, list.map(notificationItem))
      : h(
          'p',
          { class: 'empty' },
          page
            ? 'Auf dieser Seite ist nichts mehr.'
            : 'Noch nichts Neues. Wenn jemand auf deine Beiträge antwortet, dich mit @Name erwähnt oder in einem Thread schreibt, dem du folgst, steht es hier.',
        ),
    pager('/benachrichtigungen', page, list.length, notificationPageSize),
    page === 0 ? feedBox() : null,
  );
  // Opened is read: up to the newest shown, so one that arrived meanwhile stays unread.
  const [newest] = list;
  const newestUnread = list.find((n) => !n.read);
  if (newest && newestUnread)
    showUnread((await api.post('/api/user/notifications/read', { up_to: String(newest.id) })).count);
  return page ? `Benachrichtigungen, Seite ${page + 1}` : 'Benachrichtigungen';
}
