// "/u/{username}": avatar, member since, a ban if there is one, and the user's entries with paging.
// Moderators also find the account's moderation tools here.
import * as api from '../api.js';
import { add, h, uid } from '../dom.js';
import { dateTime, isoTime, longDate } from '../format.js';
import { refresh } from '../router.js';
import { isModerator, isMuted, me } from '../session.js';
import { announce } from '../status.js';
import { avatar } from '../components/avatar.js';
import { entryCard } from '../components/entry.js';
import { panelToggle } from '../components/entry-actions.js';
import { avatarRemoveForm, banForm, banText, treeBanText, unbanButton } from '../components/mod-actions.js';
import { muteButton, muteChangeText } from '../components/mute-button.js';
import { pageFromQuery, pager } from '../components/pager.js';

/** @import { ViewContext } from '../router.js' */

/** @param {string} raw */
function decodedName(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** @param {string} name */
function profileLink(name) {
  return h('a', { href: `/u/${encodeURIComponent(name)}` }, name);
}

/**
 * "Dieses Konto ist gesperrt bis …." with the end as a <time>, as the server draws it (lib/pages/views/profile.ts).
 * @param {number} until
 */
function banNote(until) {
  const ban =
    until === -1 ? 'dauerhaft gesperrt' : ['gesperrt bis ', h('time', { datetime: isoTime(until) }, dateTime(until))];
  return h('p', { class: 'ban-note' }, 'Dieses Konto ist ', ban, '.');
}

/**
 * What moderators see of the account (docs/API.md "Registration", for moderators): its trust
 * level, who invited it and whom it invited, each a link to the profile.
 * @param {Api.ModeratedAccount} account
 */
function accountFacts(account) {
  const invitees = account.invitees.length
    ? h(
        'ul',
        { class: 'invitee-list', 'aria-label': `Von ${account.username} eingeladen` },
        account.invitees.map((i) => h('li', {}, profileLink(i.username))),
      )
    : 'niemanden';
  return h(
    'dl',
    { class: 'facts account-facts' },
    h('dt', {}, 'Vertrauensstufe'),
    h('dd', {}, account.trust_level === 0 ? '0 (neues Konto)' : '1'),
    h('dt', {}, 'Eingeladen von'),
    h(
      'dd',
      {},
      account.invited_by ? profileLink(account.invited_by) : 'niemandem (ohne Einladung oder von der Administration)',
    ),
    h('dt', {}, 'Hat eingeladen'),
    h('dd', {}, invitees),
    account.tree_size > account.invitees.length
      ? [
          h('dt', {}, 'Einladungsbaum'),
          h('dd', {}, `${account.tree_size} Konten mit den Eingeladenen der Eingeladenen`),
        ]
      : null,
  );
}

/**
 * Ban, unban and avatar removal for moderators, with the account's facts; the page redraws with the result.
 * @param {Api.PublicUser} user
 * @param {Api.ModeratedAccount} account
 */
function moderationTools(user, account) {
  const panel = h('div', { class: 'entry-panel', id: uid('panel') });
  /** @param {string} text */
  const finish = (text) => {
    announce(text);
    refresh();
  };
  const tools = h(
    'div',
    { class: 'entry-actions' },
    user.banned_until
      ? panelToggle('Sperre aufheben', panel, () =>
          unbanButton(user.username, () => finish(`Die Sperre von ${user.username} ist aufgehoben.`)),
        )
      : panelToggle(
          'Sperren',
          panel,
          (close) =>
            banForm(
              user.username,
              {
                onCancel: close,
                onDone: (ban) => finish(`${user.username} ist ${banText(ban.banned_until)}.${treeBanText(ban)}`),
              },
              account,
            ),
          'danger-text',
        ),
    user.avatar
      ? panelToggle(
          'Avatar entfernen',
          panel,
          (close) =>
            avatarRemoveForm(user.username, { onCancel: close, onDone: () => finish('Der Avatar ist entfernt.') }),
          'danger-text',
        )
      : null,
  );
  return h(
    'section',
    { class: 'card mod-tools', 'aria-labelledby': 'mod-tools-heading' },
    h('h2', { id: 'mod-tools-heading' }, 'Moderation'),
    accountFacts(account),
    tools,
    panel,
  );
}

/**
 * Mute or unmute for a logged-in reader; the button swaps itself and says what happened next to it.
 * @param {Api.PublicUser} user
 */
function muteTools(user) {
  const line = h('p', { class: 'local-status' });
  const wrap = h('div', { class: 'profile-tools' });
  const draw = () =>
    wrap.replaceChildren(
      muteButton(user, isMuted(user.uid), 'small-button', (change) => {
        draw();
        wrap.querySelector('button')?.focus();
        announce(muteChangeText(change), 'info', line);
      }),
      line,
    );
  draw();
  return wrap;
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function profileView(root, { params, query }) {
  const name = encodeURIComponent(decodedName(params[1] ?? ''));
  const page = pageFromQuery(query);
  /** @type {[Api.PublicUser, Api.Entry[]]} */
  const [user, entries] = await Promise.all([api.get(`/api/u/${name}/info`), api.get(`/api/u/${name}/feed/${page}`)]);
  const own = me()?.uid === user.uid;
  /** @type {Api.ModeratedAccount | null} */
  const account = isModerator() && !own ? await api.get(`/api/mod/user/${name}`) : null;
  add(
    root,
    h(
      'header',
      { class: 'profile-head' },
      avatar(user.username, user.avatar, 'large'),
      h(
        'div',
        {},
        h('h1', {}, user.username),
        h('p', { class: 'muted' }, `Mitglied seit ${longDate(user.created_at)}`),
        user.banned_until ? banNote(user.banned_until) : null,
        user.fediverse
          ? h(
              'p',
              { class: 'muted' },
              'Aus dem Fediverse (Mastodon, Lemmy …) folgen: ',
              h('strong', {}, user.fediverse),
            )
          : null,
        own ? h('p', {}, h('a', { href: '/settings' }, 'Profil bearbeiten')) : null,
        me() && !own ? muteTools(user) : null,
      ),
    ),
    account ? moderationTools(user, account) : null,
    h('h2', {}, 'Beiträge'),
    entries.length
      ? h(
          'ul',
          { class: 'entry-list' },
          entries.map((entry) => h('li', {}, entryCard(entry, { refresh, replyContext: true, neverFold: true }))),
        )
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Noch keine Beiträge.'),
    pager(`/u/${name}`, page, entries.length),
  );
  return page ? `${user.username}, Seite ${page + 1}` : user.username;
}
