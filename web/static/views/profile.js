// "/u/{username}": the profile as the server draws it (markup/profile.js), with the cards' actions,
// a link to the settings on one's own, the mute for other readers, and for moderators the
// account's moderation tools.
import * as api from '../api.js';
import { h, uid } from '../dom.js';
import { refresh } from '../router.js';
import { isModerator, isMuted, me } from '../session.js';
import { announce } from '../status.js';
import { loadTallies } from '../votes.js';
import { enhanceCards } from '../components/entry.js';
import { panelToggle } from '../components/entry-actions.js';
import { avatarRemoveForm, banForm, banText, treeBanText, unbanButton } from '../components/mod-actions.js';
import { muteButton, muteChangeText } from '../components/mute-button.js';
import { userHref } from '../markup/entry.js';
import { pageFromQuery } from '../markup/pager.js';
import { profileMarkup, profileTitle } from '../markup/profile.js';

/** @import { DrawnView } from '../router.js' */

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
  return h('a', { href: userHref(name) }, name);
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

/** @type {DrawnView} */
export const profileView = {
  async load({ params, query }) {
    const name = encodeURIComponent(decodedName(params[1] ?? ''));
    const page = pageFromQuery(query);
    /** @type {[Api.PublicUser, Api.Entry[]]} */
    const [user, entries] = await Promise.all([api.get(`/api/u/${name}/info`), api.get(`/api/u/${name}/feed/${page}`)]);
    const own = me()?.uid === user.uid;
    /** @type {Api.ModeratedAccount | null} */
    const account = isModerator() && !own ? await api.get(`/api/mod/user/${name}`) : null;
    const tallies = await loadTallies(entries.map((entry) => entry.pid));
    return {
      title: profileTitle(user.username, page),
      markup: () => profileMarkup(user, page, entries, tallies),
      enhance(view) {
        const about = view.querySelector(':scope > .profile-head > div');
        if (own) about?.append(h('p', {}, h('a', { href: '/settings' }, 'Profil bearbeiten')));
        else if (me()) about?.append(muteTools(user));
        if (account) view.querySelector(':scope > .profile-head')?.after(moderationTools(user, account));
        enhanceCards(view, entries, { refresh, replyContext: true, neverFold: true });
      },
    };
  },
};
