// The header link to /mod for moderators, with the number of entries that have open reports.
import * as api from '../api.js';
import { h } from '../dom.js';

/** @type {{ link: HTMLAnchorElement, count: HTMLSpanElement } | null} */
let parts = null;

/** The one link of the page, made at its first use. */
function made() {
  if (parts) return parts;
  const count = h('span', { class: 'badge mod-count', hidden: true });
  // The space keeps the shown text "Moderation 3" a part of the spoken name (WCAG 2.5.3, label in name).
  const link = h('a', { href: '/mod', class: 'mod-link' }, 'Moderation ', count);
  parts = { link, count };
  return parts;
}

/** The link (one for the page; app.js puts it in the header and refreshes the number after each view). */
export function modLink() {
  return made().link;
}

/** Asks the server how many entries wait in the queue; a failure leaves the number as it was. */
export async function refreshModCount() {
  if (!parts?.link.isConnected) return;
  try {
    showModCount((await api.get('/api/mod/queue')).open_entries);
  } catch {
    // The header is no place for an error; the /mod page shows its own.
  }
}

/**
 * Sets the number at once (the queue page knows it after each action).
 * @param {number} n
 */
export function showModCount(n) {
  const { link, count } = made();
  count.textContent = n > 0 ? String(n) : '';
  count.hidden = !(n > 0);
  link.setAttribute(
    'aria-label',
    n > 0 ? `Moderation: ${n} ${n === 1 ? 'gemeldeter Beitrag' : 'gemeldete Beiträge'}` : 'Moderation',
  );
}
