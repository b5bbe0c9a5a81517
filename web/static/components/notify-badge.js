// The header link to /benachrichtigungen with the number of unread notifications.
import * as api from '../api.js';
import { h } from '../dom.js';

/** Why a minute: the badge is a hint, not a chat; more often would only load the server. */
const refreshEvery = 60_000;

/** @type {{ link: HTMLAnchorElement, count: HTMLSpanElement } | null} */
let parts = null;
let lastAsked = 0;
let started = false;

/** The one link of the page, made at its first use. */
function made() {
  if (parts) return parts;
  const count = h('span', { class: 'badge notify-count', hidden: true });
  // The space keeps the shown text ("Benachrichtigungen 2") a part of the spoken name ("Benachrichtigungen: 2 ungelesen"):
  // speech input users say what they see.
  const link = h(
    'a',
    { href: '/benachrichtigungen', class: 'notify-link', 'aria-label': 'Benachrichtigungen' },
    'Benachrichtigungen',
    ' ',
    count,
  );
  parts = { link, count };
  return parts;
}

/** The link (one for the page; app.js puts it in the header for a logged-in reader). */
export function notifyLink() {
  if (!started) start();
  return made().link;
}

/**
 * Sets the number at once (the notifications page knows it after marking read).
 * @param {number} n
 */
export function showUnread(n) {
  const { link, count } = made();
  count.textContent = n > 0 ? String(n) : '';
  count.hidden = !(n > 0);
  link.setAttribute('aria-label', n > 0 ? `Benachrichtigungen: ${n} ungelesen` : 'Benachrichtigungen');
}

let timer = 0;

/**
 * Asks the server, unless it was asked less than a minute ago, the tab is hidden or the link is
 * not shown; a failure keeps the number. The next check is due a minute after this one.
 */
async function refreshUnread() {
  if (!parts?.link.isConnected || document.visibilityState !== 'visible') return;
  const now = Date.now();
  if (now - lastAsked < refreshEvery) return;
  lastAsked = now;
  clearTimeout(timer);
  timer = setTimeout(refreshUnread, refreshEvery);
  try {
    showUnread((await api.get('/api/user/notifications/unread')).count);
  } catch {
    // The header is no place for an error; the page shows its own.
  }
}

/** When the tab gains focus, and every minute while it is visible; never more often than once a minute. */
function start() {
  started = true;
  window.addEventListener('focus', refreshUnread);
  document.addEventListener('visibilitychange', refreshUnread);
  queueMicrotask(refreshUnread); // once the header shows the link
}

/** A new reader logged in: the next check asks at once. */
export function resetUnread() {
  lastAsked = 0;
  showUnread(0);
  queueMicrotask(refreshUnread);
}
