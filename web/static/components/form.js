// Labelled form fields with their own error line, and API errors put next to the right field.
import { ApiError } from '../api.js';
import { h, uid } from '../dom.js';
import { passwordRule } from '../rules.js';
import { announce } from '../status.js';

/** @import { Attrs } from '../dom.js' */

/** @typedef {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} FieldControl */

/**
 * A labelled field: its wrapper, its control, its error line, and setError(text) ('' clears it).
 * @template {FieldControl} [C=FieldControl]
 * @typedef {{ wrap: HTMLElement, input: C, error: HTMLElement, setError: (message: string) => void }} Field
 */

/**
 * What showApiError can mark: a control to focus and its way to show an error.
 * @typedef {{ input: HTMLElement, setError: (message: string) => void }} ErrorTarget
 */

/**
 * The field object both kinds return: setError(text) fills the error line and marks the input
 * invalid. The error goes as soon as the field changes: it was about the value that was sent.
 * @template {FieldControl} C
 * @param {HTMLElement} wrap
 * @param {C} input
 * @param {HTMLElement} error
 * @returns {Field<C>}
 */
function withError(wrap, input, error) {
  /** @param {string} message */
  const setError = (message) => {
    error.textContent = message || '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  const clear = () => {
    if (error.textContent) setError('');
  };
  input.addEventListener('input', clear);
  input.addEventListener('change', clear);
  return { wrap, input, error, setError };
}

/**
 * A labelled input (or textarea/select via `tag`): returns {wrap, input, error, setError}.
 * Every input has a <label>; hint and error are wired with aria-describedby. Other attributes
 * (autocomplete, required, rows ...) go to the control.
 * @param {{ label: string, name: string, tag?: 'input' | 'textarea' | 'select', type?: string, value?: string, hint?: string,
 *   options?: [string, string][], [attribute: string]: Attrs[string] | [string, string][] }} spec
 * @returns {Field}
 */
export function field({ label, name, tag = 'input', type = 'text', value = '', hint = '', options = [], ...rest }) {
  const attrs = /** @type {Attrs} */ (rest); // the named members above are all that is not an attribute
  const id = uid(name);
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const input =
    tag === 'select'
      ? h(
          'select',
          { id, name, ...attrs },
          options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
        )
      : h(tag, { id, name, ...(tag === 'input' ? { type } : {}), ...attrs });
  if (tag !== 'select' && value) input.value = value;
  const error = h('p', { class: 'field-error', id: errorId });
  input.setAttribute('aria-describedby', [hintId, errorId].filter(Boolean).join(' '));
  const wrap = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint && h('p', { class: 'field-hint', id: hintId }, hint),
    error,
  );
  return withError(wrap, input, error);
}

/**
 * A file input with a German "Datei auswählen" button (the browser's own button speaks the
 * browser's language). The native input stays focusable and carries the label; the button
 * look and the file name are decoration for sighted users.
 * @param {{ label: string, name: string, accept: string }} spec
 * @returns {Field<HTMLInputElement>}
 */
export function fileField({ label, name, accept }) {
  const id = uid(name);
  const errorId = `${id}-error`;
  const input = h('input', { id, name, type: 'file', accept, class: 'file-input', 'aria-describedby': errorId });
  const fileName = h('span', { class: 'file-name', 'aria-hidden': 'true' }, 'Keine Datei ausgewählt');
  const error = h('p', { class: 'field-error', id: errorId });
  const wrap = h(
    'div',
    { class: 'field' },
    input,
    h(
      'label',
      { for: id, class: 'file-label' },
      h('span', { class: 'file-label-text' }, label),
      h(
        'span',
        { class: 'file-row' },
        h('span', { class: 'file-button', 'aria-hidden': 'true' }, 'Datei auswählen …'),
        fileName,
      ),
    ),
    error,
  );
  input.addEventListener('change', () => {
    fileName.textContent = input.files?.[0]?.name ?? 'Keine Datei ausgewählt';
  });
  return withError(wrap, input, error);
}

/** The form-level message line (read out at once as an alert). */
export function formMessage() {
  return h('p', { class: 'form-message', role: 'alert' });
}

/**
 * Shows an ApiError: `fields` (registration) and `field` go next to their inputs, everything
 * else into the form message. `aliases` maps codes without a field to one (e.g. upload.bad_type → file).
 * Focuses the first field with an error.
 * @param {ApiError} err
 * @param {Record<string, ErrorTarget>} fields
 * @param {HTMLElement} message
 * @param {Record<string, string>} [aliases]
 */
export function showApiError(err, fields, message, aliases = {}) {
  clearErrors(fields, message);
  /** @type {Record<string, string>} */
  const perField = { ...err.fields };
  const fieldName = err.field || aliases[err.code];
  if (fieldName && !perField[fieldName]) perField[fieldName] = err.message;
  /** @type {ErrorTarget | null} */
  let first = null;
  for (const [name, text] of Object.entries(perField)) {
    const f = fields[name];
    if (!f) continue;
    f.setError(text);
    first ??= f;
  }
  if (!first || Object.keys(err.fields).length > 0) message.textContent = err.message;
  first?.input.focus();
}

/**
 * Clears all field errors and the form message.
 * @param {Record<string, ErrorTarget>} fields
 * @param {HTMLElement | null} message
 */
export function clearErrors(fields, message) {
  for (const f of Object.values(fields)) f.setError('');
  if (message) message.textContent = '';
}

/**
 * Marks a button as waiting for its request, or done. aria-disabled, not disabled: a disabled
 * button drops the keyboard focus to the start of the page, and whoever pressed it would have to
 * find their place again. The handlers ignore a button that waits (isWaiting).
 * @param {HTMLButtonElement} button
 * @param {boolean} waiting
 */
export function setWaiting(button, waiting) {
  if (waiting) button.setAttribute('aria-disabled', 'true');
  else button.removeAttribute('aria-disabled');
}

/**
 * Whether the button's request still runs (setWaiting).
 * @param {HTMLButtonElement} button
 */
export function isWaiting(button) {
  return button.getAttribute('aria-disabled') === 'true';
}

/**
 * Runs `action` on submit with the button waiting (setWaiting); errors go to showApiError.
 * @param {HTMLFormElement} form
 * @param {HTMLButtonElement} button
 * @param {Record<string, ErrorTarget>} fields
 * @param {HTMLElement} message
 * @param {() => Promise<void>} action
 * @param {Record<string, string>} [aliases]
 */
export function onSubmit(form, button, fields, message, action, aliases) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (isWaiting(button)) return;
    clearErrors(fields, message);
    setWaiting(button, true);
    try {
      await action();
    } catch (err) {
      if (err instanceof ApiError) showApiError(err, fields, message, aliases);
      else message.textContent = 'Unerwarteter Fehler. Bitte lade die Seite neu.';
    } finally {
      setWaiting(button, false);
    }
  });
}

/**
 * A button that runs `action` once per click: waiting while it runs (setWaiting), and a failure's
 * message shown next to it (the container's message line, status.js).
 * @param {HTMLButtonElement} button
 * @param {() => Promise<void>} action
 */
export function onClickBusy(button, action) {
  button.addEventListener('click', async () => {
    if (isWaiting(button)) return;
    setWaiting(button, true);
    try {
      await action();
    } catch (err) {
      announce(
        /** @type {Error | undefined} */ (err)?.message || 'Unerwarteter Fehler. Bitte lade die Seite neu.',
        'error',
        button,
      );
    } finally {
      setWaiting(button, false);
    }
  });
}

/**
 * The new password and its repetition (fields pass1 and pass2, as the API names them): one pair
 * for every form that sets a password, so the rule shown and the autocomplete hint stay the same.
 * @returns {{ pass1: Field, pass2: Field }}
 */
export function newPasswordFields() {
  return {
    pass1: field({
      label: 'Neues Passwort',
      name: 'pass1',
      type: 'password',
      autocomplete: 'new-password',
      required: true,
      hint: passwordRule,
    }),
    pass2: field({
      label: 'Neues Passwort wiederholen',
      name: 'pass2',
      type: 'password',
      autocomplete: 'new-password',
      required: true,
    }),
  };
}
