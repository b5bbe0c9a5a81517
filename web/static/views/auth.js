// "/login", "/register" and "/reset": accounts without e-mail.
import * as api from '../api.js';
import { forgottenPasswordHint } from '../contact.js';
import { add, h } from '../dom.js';
import { sameOriginPath, withNext } from '../next-path.js';
import { busyText, retryWhenBusy, whenNotBusy } from '../busy-retry.js';
import { withProofOfWork } from '../pow.js';
import { passkeysSupported, signInWithPasskey } from '../passkeys.js';
import { navigate } from '../router.js';
import { me, refreshMe } from '../session.js';
import { announce } from '../status.js';
import { field, formMessage, newPasswordFields, onSubmit } from '../components/form.js';

/** @import { Field } from '../components/form.js' */
/** @import { ViewContext } from '../router.js' */

/**
 * Login durations offered (docs/API.md "POST /api/auth/login": from 1 hour to 1 year), as `timeout` seconds; each within
 * the range the server accepts (minLoginSeconds to maxLoginSeconds, lib/product.ts).
 */
/** @type {[string, string][]} */
const durations = [
  ['3600', '1 Stunde'],
  ['86400', '1 Tag'],
  ['604800', '1 Woche'],
  ['2592000', '30 Tage'],
  ['31536000', '1 Jahr'],
];

/**
 * The login form's preselected duration: 30 days, so a phone's reader is not asked to log in every
 * day (Discourse keeps 60). The API's default without a `timeout` stays the spec's day
 * (defaultLoginSeconds in limits.js); the form always sends its choice.
 */
const preselectedLoginSeconds = 2_592_000;

/**
 * Where to go after login: a path of the board from ?weiter=, never another site.
 * @param {URLSearchParams} query
 */
export function nextPath(query) {
  return sameOriginPath(query.get('weiter'), location.origin);
}

/**
 * A form of the account pages: its fields, the message line for errors (an alert) and the status
 * line for what runs meanwhile (proof of work, a wait for the next try), read out politely.
 * @param {Record<string, Field>} fields
 * @param {HTMLButtonElement} button
 */
export function authForm(fields, button) {
  const message = formMessage();
  const status = h('p', { class: 'form-status muted small', role: 'status' });
  const form = h(
    'form',
    { class: 'card auth-form', novalidate: true },
    Object.values(fields).map((f) => f.wrap),
    message,
    status,
    h('div', { class: 'form-actions' }, button),
  );
  return { form, message, status };
}

/**
 * Logs in with the name and password (and the form's duration, if any), waiting and trying again
 * while the board is busy, and solving a challenge when the name is under a guessing attack
 * (docs/API.md "Proof of work"): each try gets a challenge of its own. Progress and waits show in
 * `status`, which is empty again afterwards.
 * @param {Record<string, string>} fields user, pass, timeout
 * @param {HTMLElement} status
 */
export async function logIn(fields, status) {
  try {
    return await retryWhenBusy(
      () =>
        withProofOfWork(
          (altcha) => api.post('/api/auth/login', { ...fields, ...(altcha ? { altcha } : {}) }),
          (f) => {
            status.textContent = `Rechenaufgabe gegen Bots: ${Math.round(f * 100)} %`;
          },
        ),
      (left) => {
        status.textContent = busyText(left);
      },
    );
  } finally {
    status.textContent = '';
  }
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function loginView(root, { query }) {
  const next = nextPath(query);
  add(root, h('h1', {}, 'Anmelden'));
  const user = me();
  if (user) {
    add(root, h('p', {}, `Du bist als ${user.username} angemeldet. `, h('a', { href: next }, 'Weiter')));
    return 'Anmelden';
  }
  const fields = {
    user: field({ label: 'Benutzername', name: 'user', autocomplete: 'username', required: true }),
    pass: field({
      label: 'Passwort',
      name: 'pass',
      type: 'password',
      autocomplete: 'current-password',
      required: true,
    }),
    timeout: field({
      label: 'Angemeldet bleiben für',
      name: 'timeout',
      tag: 'select',
      value: String(preselectedLoginSeconds),
      options: durations,
    }),
  };
  const button = h('button', { type: 'submit', class: 'primary' }, 'Anmelden');
  const { form, message, status } = authForm(fields, button);
  onSubmit(
    form,
    button,
    fields,
    message,
    async () => {
      await logIn(
        { user: fields.user.input.value, pass: fields.pass.input.value, timeout: fields.timeout.input.value },
        status,
      );
      await refreshMe();
      navigate(next);
      announce(`Willkommen, ${me()?.username ?? ''}!`);
    },
    { 'auth.bad_credentials': 'pass' },
  );
  add(
    root,
    form,
    passkeysSupported() ? passkeySignIn(fields.timeout.input, next) : null,
    forgottenPasswordHint(),
    h('p', {}, 'Noch kein Konto? ', h('a', { href: withNext('/register', next) }, 'Registrieren')),
  );
  return 'Anmelden';
}

/**
 * "Mit Passkey anmelden": no name typed, the authenticator offers its passkeys for this board
 * (docs/API.md "Passkeys"); the duration is the login form's.
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} timeout
 * @param {string} next
 */
function passkeySignIn(timeout, next) {
  const message = formMessage();
  const button = h('button', { type: 'button', class: 'passkey-sign-in' }, 'Mit Passkey anmelden');
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-disabled') === 'true') return;
    message.textContent = '';
    button.setAttribute('aria-disabled', 'true');
    try {
      await signInWithPasskey(timeout.value);
      await refreshMe();
      navigate(next);
      announce(`Willkommen, ${me()?.username ?? ''}!`);
    } catch (err) {
      message.textContent = err instanceof Error ? err.message : String(err);
    } finally {
      button.removeAttribute('aria-disabled');
    }
  });
  return h('div', { class: 'card auth-form passkey-login' }, h('div', { class: 'form-actions' }, button), message);
}

let resetToken = '';

/**
 * The token arrives in the fragment (never sent to the server with the page request), is taken
 * out of the address bar at once and goes to the API only in POST bodies.
 * @param {HTMLElement} root
 */
export async function resetView(root) {
  add(root, h('h1', {}, 'Neues Passwort'));
  if (location.hash.length > 1) {
    resetToken = location.hash.slice(1);
    history.replaceState(null, '', '/reset');
  }
  if (!resetToken) {
    add(root, h('p', {}, 'Dieser Link ist unvollständig. Bitte öffne den Link genau so, wie du ihn bekommen hast.'));
    return 'Neues Passwort';
  }
  let username;
  try {
    ({ username } = await api.post('/api/auth/reset/check', { token: resetToken }));
  } catch (err) {
    if (!(err instanceof api.ApiError) || err.code !== 'reset.invalid') throw err;
    add(
      root,
      h('p', { class: 'form-message' }, err.message),
      h('p', {}, 'Bitte frag die Administration nach einem neuen Link.'),
    );
    return 'Neues Passwort';
  }
  const fields = {
    ...newPasswordFields(),
  };
  const button = h('button', { type: 'submit', class: 'primary' }, 'Passwort speichern');
  const { form, message } = authForm(fields, button);
  form.prepend(
    h('p', {}, 'Neues Passwort für ', h('strong', {}, username), ':'),
    h('input', {
      type: 'text',
      name: 'username',
      autocomplete: 'username',
      value: username,
      hidden: true,
      readonly: true,
    }),
  );
  onSubmit(form, button, fields, message, async () => {
    await whenNotBusy(
      () =>
        api.post('/api/auth/reset', {
          token: resetToken,
          pass1: fields.pass1.input.value,
          pass2: fields.pass2.input.value,
        }),
      form,
    );
    resetToken = '';
    await refreshMe();
    navigate('/');
    announce('Dein Passwort ist geändert, und du bist angemeldet.');
  });
  add(root, form);
  return 'Neues Passwort';
}
