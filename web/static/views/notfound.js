// Pages for addresses and objects that do not exist (markup/not-found.js, the server's too), and for
// failed loads.
import { ApiError } from '../api.js';
import { add, h } from '../dom.js';
import { notFoundMarkup } from '../markup/not-found.js';

/**
 * Unknown address, entry or user (the server answered the page itself with 404).
 * @param {HTMLElement} root
 * @param {unknown} _ctx
 * @param {string} [message]
 */
export function notFoundView(root, _ctx, message) {
  root.append(...notFoundMarkup(message).childNodes);
  return 'Nicht gefunden';
}

/**
 * A view that could not load: the API's German message and a way to try again.
 * @param {HTMLElement} root
 * @param {Error | undefined} err an ApiError, or whatever else a view threw
 */
export function errorView(root, err) {
  if (err instanceof ApiError && err.status === 404) return notFoundView(root, null, err.message);
  const again = h('button', { type: 'button' }, 'Erneut versuchen');
  again.addEventListener('click', () => location.reload());
  add(
    root,
    h('h1', {}, 'Das hat nicht geklappt'),
    h('p', { class: 'form-message' }, err?.message || 'Unerwarteter Fehler.'),
    h('p', {}, again),
  );
  return 'Fehler';
}
