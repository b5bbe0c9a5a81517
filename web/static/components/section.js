// A titled card section of a page (settings), labelled by its heading, with its own message line.
import { h } from '../dom.js';

/** @import { Child } from '../dom.js' */

/**
 * <section class="card"> with an <h2 id> that labels it; messages about it show in its `.local-status` line.
 * @param {string} id
 * @param {string} title
 * @param {...Child} children
 */
export function section(id, title, ...children) {
  return h(
    'section',
    { class: 'card settings-section', 'aria-labelledby': id },
    h('h2', { id }, title),
    ...children,
    h('p', { class: 'local-status' }),
  );
}
