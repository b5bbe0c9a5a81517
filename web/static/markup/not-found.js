// The page of an address, an entry or a user that does not exist (the server answers it with 404).
import { h } from '../dom.js';

/**
 * "Nicht gefunden", why, and the way to the newest threads.
 * @param {string} [message]
 */
export function notFoundMarkup(message = 'Diese Seite gibt es nicht.') {
  return h(
    'div',
    { class: 'view' },
    h('h1', {}, 'Nicht gefunden'),
    h('p', {}, message),
    h('p', {}, h('a', { href: '/' }, 'Zu den neuesten Themen')),
  );
}
