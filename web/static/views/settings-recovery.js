// Settings: "Wiederherstellungscodes" (docs/API.md "Recovery codes"): ten single-use codes that
// set a new password without the operator; shown once, then only how many are left.
import * as api from '../api.js';
import { whenNotBusy } from '../busy-retry.js';
import { h } from '../dom.js';
import { longDate } from '../format.js';
import { passkeySignature, passkeysSupported } from '../passkeys.js';
import { announce } from '../status.js';
import { formMessage, onClickBusy, onSubmit } from '../components/form.js';
import { section } from '../components/section.js';
import { passwordField } from './settings-passkeys.js';

/** @param {{ remaining: number, created_at: number }} count */
function countText({ remaining, created_at }) {
  if (!created_at) return 'Du hast noch keine Wiederherstellungscodes.';
  const made = `erstellt am ${longDate(created_at)}`;
  return remaining === 1 ? `Noch 1 Code übrig (${made}).` : `Noch ${remaining} Codes übrig (${made}).`;
}

/** The count, the form that makes a new set, and the new set shown once. */
export async function recoverySection() {
  /** @type {{ remaining: number, created_at: number }} */
  const count = await api.get('/api/user/recovery-codes');
  const status = h('p', { class: 'recovery-count' }, countText(count));
  const shown = h('div', { class: 'recovery-new' });
  const fields = {
    pass1: passwordField(),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Neue Codes erstellen');
  const byPasskey = h('button', { type: 'button' }, 'Mit einem Passkey bestätigen');
  const form = h(
    'form',
    { novalidate: true },
    fields.pass1.wrap,
    message,
    h('div', { class: 'form-actions' }, button, passkeysSupported() ? byPasskey : null),
  );
  /** @param {Record<string, string>} confirmation */
  const makeWith = async (confirmation) => {
    /** @type {{ codes: string[], created_at: number }} */
    const made = await whenNotBusy(() => api.post('/api/user/recovery-codes', confirmation), form);
    fields.pass1.input.value = '';
    status.textContent = countText({ remaining: made.codes.length, created_at: made.created_at });
    shown.replaceChildren(
      h(
        'p',
        { class: 'note' },
        h('strong', {}, 'Nur jetzt sichtbar: '),
        'Schreib die Codes auf oder speichere sie an einem sicheren Ort. Jeder funktioniert einmal; frühere Codes gelten nicht mehr.',
      ),
      h(
        'ol',
        { class: 'recovery-codes', 'aria-label': 'Deine neuen Wiederherstellungscodes' },
        made.codes.map((code) => h('li', {}, h('code', {}, code))),
      ),
    );
    announce('Neue Wiederherstellungscodes sind erstellt.', 'info', form);
  };
  onSubmit(form, button, fields, message, () => makeWith({ pass1: fields.pass1.input.value }));
  // Whoever signs in with a passkey and forgot the password needs codes most: a passkey confirms too.
  onClickBusy(byPasskey, async () => makeWith({ passkey: await passkeySignature() }));
  return section(
    'recovery-heading',
    'Wiederherstellungscodes',
    h(
      'p',
      { class: 'muted' },
      'Hast du dein Passwort vergessen, setzt du mit einem dieser Codes selbst ein neues – ohne die Betreiber zu fragen. Wer einen Code hat, kann das auch: bewahre sie auf wie ein Passwort.',
    ),
    status,
    shown,
    form,
  );
}
