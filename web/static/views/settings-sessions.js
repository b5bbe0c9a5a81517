// Settings: the password change and the list of the account's sessions (docs/API.md "Account
// self-service"), each with a readable device, and the way to end any of them.
import * as api from '../api.js';
import { whenNotBusy } from '../busy-retry.js';
import { h } from '../dom.js';
import { dateTime } from '../format.js';
import { navigate } from '../router.js';
import { setMe } from '../session.js';
import { announce } from '../status.js';
import { field, formMessage, newPasswordFields, onClickBusy, onSubmit } from '../components/form.js';
import { section } from '../components/section.js';

/**
 * The current password first (the server checks it before the new ones); every other session ends.
 * @param {Api.OwnUser} user
 * @param {() => void} onChanged
 */
export function passwordSection(user, onChanged) {
  const fields = {
    pass: field({
      label: 'Aktuelles Passwort',
      name: 'pass',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    }),
    ...newPasswordFields(),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Passwort ändern');
  // The name helps password managers file the new password under the right account.
  const form = h(
    'form',
    { novalidate: true },
    h('input', {
      type: 'text',
      name: 'username',
      autocomplete: 'username',
      value: user.username,
      hidden: true,
      readonly: true,
    }),
    Object.values(fields).map((f) => f.wrap),
    message,
    h('div', { class: 'form-actions' }, button),
  );
  onSubmit(form, button, fields, message, async () => {
    await whenNotBusy(
      () =>
        api.post('/api/user/password', {
          pass: fields.pass.input.value,
          pass1: fields.pass1.input.value,
          pass2: fields.pass2.input.value,
        }),
      form,
    );
    for (const f of Object.values(fields)) f.input.value = '';
    announce('Dein Passwort ist geändert. Alle anderen Anmeldungen sind beendet.', 'info', form);
    onChanged();
  });
  return section(
    'password-heading',
    'Passwort ändern',
    h(
      'p',
      { class: 'muted' },
      'Danach bist du nur noch hier angemeldet: Alle anderen Anmeldungen enden, ebenso offene Links zum Zurücksetzen.',
    ),
    form,
  );
}

/**
 * @param {Api.SessionListItem} session
 * @param {HTMLElement} item
 */
async function revoke(session, item) {
  await api.post(`/api/user/sessions/${encodeURIComponent(session.id)}/revoke`);
  if (session.current) {
    // Ending this session is logging out (the server cleared the cookie).
    setMe(null);
    navigate('/');
    announce('Du bist abgemeldet.');
    return;
  }
  const list = item.parentElement;
  item.remove();
  announce(`Die Anmeldung „${session.device}“ ist beendet.`, 'info', list);
}

/** @param {Api.SessionListItem} session */
function sessionItem(session) {
  const end = h(
    'button',
    { type: 'button', class: session.current ? '' : 'danger-outline' },
    session.current ? 'Abmelden' : 'Beenden',
  );
  const item = h(
    'li',
    { class: 'session-item', 'data-current': session.current ? 'true' : null },
    h(
      'div',
      { class: 'session-what' },
      h('strong', {}, session.device),
      session.current ? h('span', { class: 'badge' }, 'Diese Anmeldung') : null,
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Angemeldet seit'),
      h('dd', {}, dateTime(session.created_at)),
      h('dt', {}, 'Gültig bis'),
      h('dd', {}, dateTime(session.expires)),
      session.push ? [h('dt', {}, 'Push'), h('dd', {}, `seit ${dateTime(session.push.created_at)}`)] : null,
    ),
    end,
  );
  end.setAttribute(
    'aria-label',
    `${session.current ? 'Abmelden' : 'Beenden'}: ${session.device}, angemeldet seit ${dateTime(session.created_at)}`,
  );
  onClickBusy(end, () => revoke(session, item));
  return item;
}

/** Every live session, newest first: the device in words ("Firefox auf Linux"), never the raw User-Agent. */
export async function sessionsSection() {
  /** @type {Api.SessionListItem[]} */
  const sessions = await api.get('/api/user/sessions');
  const list = h('ul', { class: 'session-list', 'aria-label': 'Deine Anmeldungen' }, sessions.map(sessionItem));
  const others = h('button', { type: 'button' }, 'Alle anderen Anmeldungen beenden');
  onClickBusy(others, async () => {
    /** @type {{ count: number }} */
    const { count } = await api.post('/api/user/sessions/revoke-others');
    for (const item of list.querySelectorAll('.session-item:not([data-current])')) item.remove();
    announce(
      count === 1 ? 'Eine andere Anmeldung ist beendet.' : `${count} andere Anmeldungen sind beendet.`,
      'info',
      list,
    );
  });
  return section(
    'sessions-heading',
    'Anmeldungen',
    h(
      'p',
      { class: 'muted' },
      'Wo dein Konto gerade angemeldet ist. Kennst du eine Anmeldung nicht, beende sie und ändere dein Passwort.',
    ),
    list,
    sessions.length > 1 ? h('div', { class: 'form-actions' }, others) : null,
  );
}
