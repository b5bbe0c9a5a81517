// The moderators' forms: remove an entry, dismiss its reports, ban or unban an account, remove an
// avatar. Reasons are public (on the removed entry and in the moderation log); each form says so.
import * as api from '../api.js';
import { h, uid } from '../dom.js';
import { dateTime } from '../format.js';
import { maxBanDays, maxModReasonLength } from '../limits.js';
import { banWords } from '../modlog-words.js';
import { field, formMessage, isWaiting, onSubmit, setWaiting } from './form.js';

/**
 * What each form gets: onDone after the server did it, onCancel to close the form.
 * @template {unknown[]} [A=[]]
 * @typedef {{ onDone: (...args: A) => void, onCancel: () => void }} FormCallbacks
 */

const publicNote = 'Der Grund ist öffentlich: Er steht am entfernten Beitrag und im Moderationsprotokoll.';

/**
 * @param {string} label
 * @param {{ required?: boolean, note?: string }} [options]
 */
function reasonField(label, { required = true, note = publicNote } = {}) {
  return field({
    label,
    name: 'reason',
    tag: 'textarea',
    rows: 2,
    required,
    hint: `${note} Höchstens ${maxModReasonLength} Zeichen.`,
  });
}

/**
 * @param {HTMLButtonElement} submit
 * @param {(() => void) | undefined} onCancel
 */
function buttons(submit, onCancel) {
  return h(
    'div',
    { class: 'form-actions' },
    submit,
    onCancel ? h('button', { type: 'button', onclick: onCancel }, 'Abbrechen') : null,
  );
}

/**
 * "dauerhaft gesperrt" or "gesperrt bis 03.03.2026, 14:05" for a banned_until.
 * @param {number} until
 */
export function banText(until) {
  return banWords(until, dateTime);
}

/**
 * Remove an entry: the reason is required. onDone(reason) after the server removed it.
 * @param {number} pid
 * @param {FormCallbacks<[reason: string]>} callbacks
 */
export function removeForm(pid, { onDone, onCancel }) {
  const reason = reasonField('Grund der Entfernung');
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'danger' }, 'Entfernen');
  const form = h('form', { class: 'panel-form', novalidate: true }, reason.wrap, message, buttons(send, onCancel));
  onSubmit(form, send, { reason }, message, async () => {
    await api.post(`/api/mod/entry/${pid}/remove`, { reason: reason.input.value });
    onDone(reason.input.value.replace(/\s+/g, ' ').trim());
  });
  return form;
}

/**
 * Close an entry's open reports without acting on it; the reason is optional (and public too).
 * @param {number} pid
 * @param {FormCallbacks} callbacks
 */
export function dismissForm(pid, { onDone, onCancel }) {
  const reason = reasonField('Grund (optional)', {
    required: false,
    note: 'Der Grund ist öffentlich: Er steht im Moderationsprotokoll.',
  });
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'primary' }, 'Meldungen verwerfen');
  const form = h('form', { class: 'panel-form', novalidate: true }, reason.wrap, message, buttons(send, onCancel));
  onSubmit(form, send, { reason }, message, async () => {
    await api.post(`/api/mod/entry/${pid}/dismiss`, { reason: reason.input.value });
    onDone();
  });
  return form;
}

/**
 * A checkbox with its label after it.
 * @param {string} label
 * @param {string} name
 */
function checkbox(label, name) {
  const id = uid(name);
  const input = h('input', { type: 'checkbox', id, name, value: '1' });
  return {
    input,
    wrap: h('div', { class: 'field field-check' }, input, h('label', { for: id }, label)),
    setError() {},
  };
}

/**
 * What a ban answers: with tree=1 also how many invited accounts went with it.
 * @typedef {{ username: string, banned_until: number, invitees_banned?: number }} BanResult
 */

/**
 * The sentence after a ban that took invited accounts with it; '' when it took none.
 * @param {BanResult} ban
 */
export function treeBanText(ban) {
  const n = ban.invitees_banned ?? 0;
  if (!n) return '';
  return n === 1 ? ' Dazu ist 1 eingeladenes Konto gesperrt.' : ` Dazu sind ${n} eingeladene Konten gesperrt.`;
}

/**
 * The "mit eingeladenen Konten" box (tree=1, docs/API.md "Invites"), saying how many accounts it
 * takes; null when the account's invite tree is empty (nothing to take).
 * @param {string} username
 * @param {number} treeSize GET /api/mod/user/{username}'s tree_size
 */
function treeCheckbox(username, treeSize) {
  if (treeSize < 1) return null;
  const others = treeSize === 1 ? '1 weiteres Konto' : `${treeSize} weitere Konten`;
  return checkbox(
    `Mit eingeladenen Konten: sperrt ${others} mit, alle, die ${username} eingeladen hat, und deren Eingeladene (Moderatoren nicht)`,
    'tree',
  );
}

/**
 * Ban an account: reason, days (empty: for good), purge, and the accounts it invited when it has
 * any (the account's moderators' view, fetched here unless given). onDone(ban, purged, reason).
 * @param {string} username
 * @param {FormCallbacks<[ban: BanResult, purged: boolean, reason: string]>} callbacks
 * @param {Api.ModeratedAccount} [account]
 */
export function banForm(username, { onDone, onCancel }, account) {
  const reason = reasonField(`Grund der Sperre von ${username}`, {
    note: 'Der Grund ist öffentlich: Er steht im Moderationsprotokoll.',
  });
  const days = field({
    label: 'Dauer in Tagen',
    name: 'days',
    type: 'number',
    min: 1,
    max: maxBanDays,
    inputmode: 'numeric',
    hint: `1 bis ${maxBanDays}; leer lassen für eine dauerhafte Sperre.`,
  });
  const purge = checkbox('Auch alle Beiträge entfernen (mit demselben Grund)', 'purge');
  /** @type {ReturnType<typeof checkbox> | null} */
  let tree = null;
  const treeSlot = h('div', { class: 'tree-slot' });
  /** @param {Api.ModeratedAccount} known */
  const showTree = (known) => {
    tree = treeCheckbox(username, known.tree_size);
    treeSlot.replaceChildren(...(tree ? [tree.wrap] : []));
  };
  if (account) showTree(account);
  else
    api
      .get(`/api/mod/user/${encodeURIComponent(username)}`)
      .then(showTree)
      .catch(() => {}); // without the count the form bans the account alone, as before
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'danger' }, 'Sperren');
  const form = h(
    'form',
    { class: 'panel-form', novalidate: true },
    reason.wrap,
    days.wrap,
    purge.wrap,
    treeSlot,
    message,
    buttons(send, onCancel),
  );
  onSubmit(form, send, { reason, days, purge }, message, async () => {
    const result = await api.post(`/api/mod/user/${encodeURIComponent(username)}/ban`, {
      reason: reason.input.value,
      days: days.input.value,
      purge: purge.input.checked ? '1' : '',
      tree: tree?.input.checked ? '1' : '',
    });
    onDone(result, purge.input.checked, reason.input.value.replace(/\s+/g, ' ').trim());
  });
  return form;
}

/**
 * Lift a ban (no fields): a button that says what happened or why not.
 * @param {string} username
 * @param {() => void} onDone
 */
export function unbanButton(username, onDone) {
  const button = h('button', { type: 'button' }, 'Sperre aufheben');
  const message = formMessage();
  button.addEventListener('click', async () => {
    if (isWaiting(button)) return;
    setWaiting(button, true);
    message.textContent = '';
    try {
      await api.post(`/api/mod/user/${encodeURIComponent(username)}/unban`);
      onDone();
    } catch (err) {
      message.textContent = /** @type {Error} */ (err).message;
    } finally {
      setWaiting(button, false);
    }
  });
  return h('div', { class: 'panel-form' }, h('div', { class: 'form-actions' }, button), message);
}

/**
 * Remove an account's avatar: the reason is required and public.
 * @param {string} username
 * @param {FormCallbacks} callbacks
 */
export function avatarRemoveForm(username, { onDone, onCancel }) {
  const reason = reasonField(`Grund für das Entfernen des Avatars von ${username}`, {
    note: 'Der Grund ist öffentlich: Er steht im Moderationsprotokoll.',
  });
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'danger' }, 'Avatar entfernen');
  const form = h('form', { class: 'panel-form', novalidate: true }, reason.wrap, message, buttons(send, onCancel));
  onSubmit(form, send, { reason }, message, async () => {
    await api.post(`/api/mod/user/${encodeURIComponent(username)}/avatar/remove`, { reason: reason.input.value });
    onDone();
  });
  return form;
}
