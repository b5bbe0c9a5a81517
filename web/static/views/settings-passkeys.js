// Settings: the account's passkeys (docs/API.md "Passkeys"): add one under a name, see when each
// was last used, delete one. Adding and deleting ask for the password (or, to delete, a passkey).
import * as api from '../api.js';
import { whenNotBusy } from '../busy-retry.js';
import { h } from '../dom.js';
import { dateTime } from '../format.js';
import { maxPasskeyNameLength } from '../limits.js';
import { addPasskey, passkeySignature, passkeysSupported } from '../passkeys.js';
import { announce } from '../status.js';
import { field, formMessage, onClickBusy, onSubmit } from '../components/form.js';
import { section } from '../components/section.js';

/** @import { PasskeyItem } from '../passkeys.js' */

/** The password field every confirmation form here has (not labelled like the account deletion's, which is a different act). */
export function passwordField() {
  return field({
    label: 'Dein Passwort',
    name: 'pass1',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
}

/**
 * @param {PasskeyItem} passkey
 * @param {() => void} onDeleted
 */
function passkeyItem(passkey, onDeleted) {
  const fields = { pass1: passwordField() };
  const message = formMessage();
  const remove = h('button', { type: 'submit', class: 'danger-outline' }, 'Löschen');
  const byPasskey = h('button', { type: 'button' }, 'Mit einem Passkey bestätigen');
  const form = h(
    'form',
    { novalidate: true, class: 'passkey-delete' },
    fields.pass1.wrap,
    message,
    h('div', { class: 'form-actions' }, remove, byPasskey),
  );
  const item = h(
    'li',
    { class: 'session-item passkey-item' },
    h('div', { class: 'session-what' }, h('strong', {}, passkey.name)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Eingerichtet'),
      h('dd', {}, dateTime(passkey.created_at)),
      h('dt', {}, 'Zuletzt benutzt'),
      h('dd', {}, passkey.last_used ? dateTime(passkey.last_used) : 'noch nie'),
    ),
    // Folded: the list stays short, and deleting takes a deliberate step.
    h('details', { class: 'passkey-delete-step' }, h('summary', {}, 'Löschen …'), form),
  );
  remove.setAttribute('aria-label', `Passkey „${passkey.name}“ löschen`);
  /** @param {Record<string, string>} confirmation */
  const deleteWith = async (confirmation) => {
    await whenNotBusy(
      () => api.post(`/api/user/passkeys/${encodeURIComponent(passkey.id)}/delete`, confirmation),
      item,
    );
    const list = item.parentElement;
    item.remove();
    announce(`Der Passkey „${passkey.name}“ ist gelöscht.`, 'info', list);
    onDeleted();
  };
  onSubmit(form, remove, fields, message, () => deleteWith({ pass1: fields.pass1.input.value }));
  onClickBusy(byPasskey, async () => deleteWith({ passkey: await passkeySignature() }));
  return item;
}

/** The passkey list and the form that adds one. */
export async function passkeysSection() {
  /** @type {PasskeyItem[]} */
  const passkeys = await api.get('/api/user/passkeys');
  const empty = h('p', { class: 'muted passkeys-empty' }, 'Du hast noch keinen Passkey eingerichtet.');
  const list = h('ul', { class: 'session-list passkey-list', 'aria-label': 'Deine Passkeys' });
  const showEmpty = () => {
    empty.hidden = list.children.length > 0;
  };
  for (const passkey of passkeys) list.append(passkeyItem(passkey, showEmpty));
  showEmpty();

  const fields = {
    name: field({
      label: 'Name des Passkeys (z. B. „Handy“)',
      name: 'name',
      required: true,
      maxlength: maxPasskeyNameLength,
    }),
    pass1: passwordField(),
  };
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Passkey hinzufügen');
  const byPasskey = h('button', { type: 'button' }, 'Mit einem Passkey bestätigen');
  const form = h(
    'form',
    { novalidate: true, class: 'passkey-add' },
    Object.values(fields).map((f) => f.wrap),
    message,
    h('div', { class: 'form-actions' }, button, byPasskey),
  );
  /** @param {Record<string, string>} confirmation */
  const addWith = async (confirmation) => {
    const added = await addPasskey(fields.name.input.value, confirmation);
    list.append(passkeyItem(added, showEmpty));
    showEmpty();
    for (const f of Object.values(fields)) f.input.value = '';
    announce(`Der Passkey „${added.name}“ ist eingerichtet.`, 'info', form);
  };
  onSubmit(form, button, fields, message, () => addWith({ pass1: fields.pass1.input.value }));
  // Whoever signs in with a passkey and forgot the password confirms with a passkey instead.
  onClickBusy(byPasskey, async () => addWith({ passkey: await passkeySignature() }));
  return section(
    'passkeys-heading',
    'Passkeys',
    h(
      'p',
      { class: 'muted' },
      'Mit einem Passkey meldest du dich ohne Passwort an: dein Gerät bestätigt es mit Fingerabdruck, Gesicht oder PIN. Er funktioniert nur auf diesem Board, also auch nicht auf einer nachgemachten Seite.',
    ),
    empty,
    list,
    passkeysSupported() ? form : h('p', { class: 'note' }, 'Dieser Browser unterstützt keine Passkeys.'),
  );
}
