// Pages for addresses and objects that do not exist (markup/not-found.js, the server's too), and for
// failed loads.
import { ApiError } from '../api.js';
import { add, h } from '../dom.js';
import { notFoundMarkup } from '../markup/not-found.js';

/** @import { Drawn, DrawnView } from '../router.js' */

/**
 * The not-found page, saying what is missing (the API's 404 message; else the address).
 * @param {string} [message]
 * @returns {Drawn}
 */
function notFound(message) {
  return { title: 'Nicht gefunden', markup: () => notFoundMarkup(message), enhance: () => {} };
}

/**
 * The not-found page of `err` when it is the API's 404 for what the address names, else null.
 * @param {unknown} err
 */
export function notFoundOf(err) {
  return err instanceof ApiError && err.status === 404 ? notFound(err.message) : null;
}

/**
 * An unknown address (the server answered it with 404).
 * @type {DrawnView}
 */
export const notFoundView = { load: async () => notFound() };

/**
 * A view that could not load: the API's German message and a way to try again.
 * @param {HTMLElement} root
 * @param {Error | undefined} err an ApiError, or whatever else a view threw
 */
export function errorView(root, err) {
  const missing = notFoundOf(err);
  if (missing) {
    root.append(...missing.markup().childNodes);
    return missing.title;
  }
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
