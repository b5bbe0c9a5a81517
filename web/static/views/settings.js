// "/settings": rename, avatar, password, sessions, notifications (follows, push), muted accounts, the data
// export and account deletion.
import * as api from '../api.js';
import { whenNotBusy } from '../busy-retry.js';
import { add, h } from '../dom.js';
import { counted, longDate } from '../format.js';
import { avatarSize } from '../limits.js';
import { usernameRule } from '../rules.js';
import { navigate, refresh } from '../router.js';
import { me, setMe } from '../session.js';
import { announce } from '../status.js';
import { avatar } from '../markup/avatar.js';
import { imageField, uploadProgress } from '../components/image-field.js';
import { field, formMessage, onSubmit } from '../components/form.js';
import { section } from '../components/section.js';
import { exportSection, mutesSection } from './settings-data.js';
import { invitesSection } from './settings-invites.js';
import { notificationsSection } from './settings-notifications.js';
import { passkeysSection } from './settings-passkeys.js';
import { recoverySection } from './settings-recovery.js';
import { passwordSection, sessionsSection } from './settings-sessions.js';

/** @param {Api.OwnUser} user */
function renameSection(user) {
  const fields = {
    user: field({
      label: 'Neuer Name',
      name: 'user',
      value: user.username,
      autocomplete: 'username',
      required: true,
      hint: usernameRule,
    }),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Namen ändern');
  const form = h('form', { novalidate: true }, fields.user.wrap, message, h('div', { class: 'form-actions' }, button));
  onSubmit(form, button, fields, message, async () => {
    const { username } = await api.post('/api/user/rename', { user: fields.user.input.value });
    setMe({ .../** @type {Api.OwnUser} */ (me()), username });
    announce(`Dein Name ist jetzt ${username}.`);
    refresh();
  });
  return section('rename-heading', 'Name ändern', form);
}

function avatarSection() {
  const image = imageField('Neues Bild (JPEG, PNG, GIF oder WebP)', 'avatar');
  const progress = uploadProgress();
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Avatar hochladen');
  const form = h(
    'form',
    { novalidate: true },
    image.wrap,
    progress.wrap,
    message,
    h('div', { class: 'form-actions' }, button),
  );
  onSubmit(
    form,
    button,
    { avatar: image },
    message,
    async () => {
      const data = new FormData();
      const file = image.file();
      if (file) data.append('avatar', file);
      progress.set(0);
      try {
        const { avatar: path } = await api.upload('/api/user/avatar', data, (f) => progress.set(f));
        setMe({ .../** @type {Api.OwnUser} */ (me()), avatar: path });
        announce('Dein Avatar ist geändert.');
        refresh();
      } finally {
        progress.hide();
      }
    },
    { 'upload.bad_type': 'avatar', 'upload.too_large': 'avatar' },
  );
  return section(
    'avatar-heading',
    'Avatar ändern',
    h('p', { class: 'muted' }, `Das Bild wird quadratisch zugeschnitten (${avatarSize} × ${avatarSize} Pixel).`),
    form,
  );
}

/**
 * The own handle on other servers and how many accounts there follow it (docs/API.md
 * "Federation"); null when the board does not federate (whoami names no `fediverse` then).
 * @returns {Promise<HTMLElement | null>}
 */
async function fediverseSection() {
  if (!me()?.fediverse) return null;
  /** @type {{ handle: string, followers: number }} */
  const state = await api.get('/api/user/federation');
  return section(
    'fediverse-heading',
    'Fediverse',
    h('p', {}, 'Auf Mastodon, Lemmy und anderen Servern findet man dich als ', h('strong', {}, state.handle), '.'),
    h('p', {}, `Dort folgen dir ${counted(state.followers, 'Konto', 'Konten')}.`),
  );
}

function deleteSection() {
  const fields = {
    pass1: field({
      label: 'Passwort zur Bestätigung',
      name: 'pass1',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    }),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'danger' }, 'Konto endgültig löschen');
  const form = h('form', { novalidate: true }, fields.pass1.wrap, message, h('div', { class: 'form-actions' }, button));
  onSubmit(form, button, fields, message, async () => {
    await whenNotBusy(() => api.post('/api/user/delete', { pass1: fields.pass1.input.value }), form);
    setMe(null);
    navigate('/');
    announce('Dein Konto ist gelöscht.');
  });
  return section(
    'delete-heading',
    'Konto löschen',
    h(
      'p',
      {},
      'Dein Konto, deine Beiträge, Stimmen und Bilder werden gelöscht. Beiträge, auf die andere geantwortet haben, bleiben als „gelöscht“ stehen, damit deren Antworten lesbar bleiben. Das lässt sich nicht rückgängig machen.',
    ),
    form,
  );
}

/**
 * The page's own navigation: a link to each section by its heading. Why: the page is long, and a
 * section such as the invites is easier to find (and to link to, /settings#invites-heading) by name.
 * @param {HTMLElement[]} sections
 */
function settingsNav(sections) {
  const links = sections.flatMap((s) => {
    const heading = s.querySelector('h2[id]');
    return heading ? [h('li', {}, h('a', { href: `#${heading.id}` }, heading.textContent ?? ''))] : [];
  });
  return h('nav', { class: 'settings-nav', 'aria-label': 'Bereiche der Einstellungen' }, h('ul', {}, links));
}

/** @param {HTMLElement} root */
export async function settingsView(root) {
  add(root, h('h1', {}, 'Einstellungen'));
  const user = me();
  if (!user) {
    add(
      root,
      h(
        'p',
        { class: 'note' },
        'Bitte ',
        h('a', { href: '/login?weiter=/settings' }, 'melde dich an'),
        ', um deine Einstellungen zu ändern.',
      ),
    );
    return 'Einstellungen';
  }
  const [sessions, mutes, notify, passkeys, recovery, invites, fediverse] = await Promise.all([
    sessionsSection(),
    mutesSection(),
    notificationsSection(),
    passkeysSection(),
    recoverySection(),
    invitesSection(),
    fediverseSection(),
  ]);
  let sessionsCard = sessions;
  // After a password change only the other sessions are gone: the list is drawn again, the rest stays.
  const reloadSessions = async () => {
    const fresh = await sessionsSection();
    sessionsCard.replaceWith(fresh);
    sessionsCard = fresh;
  };
  const sections = [
    renameSection(user),
    avatarSection(),
    passwordSection(user, () => reloadSessions().catch((err) => announce(err.message, 'error'))),
    sessionsCard,
    notify,
    passkeys,
    recovery,
    invites,
    ...(fediverse ? [fediverse] : []),
    mutes,
    exportSection(),
    deleteSection(),
  ];
  add(
    root,
    h(
      'div',
      { class: 'profile-head' },
      avatar(user.username, user.avatar, 'medium'),
      h(
        'div',
        {},
        h('p', {}, h('a', { href: `/u/${encodeURIComponent(user.username)}` }, h('strong', {}, user.username))),
        h('p', { class: 'muted' }, `Mitglied seit ${longDate(user.created_at)}`),
      ),
    ),
    settingsNav(sections),
    sections,
  );
  return 'Einstellungen';
}
