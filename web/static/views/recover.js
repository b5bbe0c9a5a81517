// "/recover": a new password with a recovery code (docs/API.md "POST /api/auth/recover"), for
// whoever lost the password and kept the codes; logs in, as a reset link does.
import * as api from '../api.js';
import { whenNotBusy } from '../busy-retry.js';
import { add, h } from '../dom.js';
import { navigate } from '../router.js';
import { me, refreshMe } from '../session.js';
import { announce } from '../status.js';
import { field, formMessage, newPasswordFields, onSubmit } from '../components/form.js';

/** @param {HTMLElement} root */
export async function recoverView(root) {
  const title = 'Mit Wiederherstellungscode anmelden';
  add(root, h('h1', {}, title));
  const fields = {
    user: field({ label: 'Benutzername', name: 'user', autocomplete: 'username', required: true }),
    code: field({
      label: 'Wiederherstellungscode',
      name: 'code',
      autocomplete: 'off',
      required: true,
      hint: 'z. B. 7KQ2-M9XD-4TZA-H1RB',
    }),
    ...newPasswordFields(),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Passwort speichern');
  const form = h(
    'form',
    { class: 'card auth-form', novalidate: true },
    Object.values(fields).map((f) => f.wrap),
    message,
    h('div', { class: 'form-actions' }, button),
  );
  onSubmit(
    form,
    button,
    fields,
    message,
    async () => {
      await whenNotBusy(
        () =>
          api.post('/api/auth/recover', {
            user: fields.user.input.value,
            code: fields.code.input.value,
            pass1: fields.pass1.input.value,
            pass2: fields.pass2.input.value,
          }),
        form,
      );
      await refreshMe();
      navigate('/');
      announce(`Dein Passwort ist geändert, ${me()?.username ?? ''}. Der Code ist verbraucht, und du bist angemeldet.`);
    },
    { 'recovery.invalid': 'code' },
  );
  add(
    root,
    h(
      'p',
      {},
      'Jeder Code funktioniert einmal. Danach enden alle anderen Anmeldungen deines Kontos. Keine Codes mehr? ',
      h('a', { href: '/login' }, 'Zurück zur Anmeldung'),
    ),
    form,
  );
  return title;
}
