// Messages for everyone and the busy bar while requests run.
//
// Every message is read out through one live region (#status). Where it shows depends on where it
// came from: a message about an action inside a card or a form (a vote, a report, a bump) shows in
// that container's own message line, right under what the user acted on, and covers nothing; a
// message about the page (a welcome after login, a session that ended) shows in the bar above the
// page. Either belongs to the page that raised it: a navigation clears it (router.js).

let running = 0;

/**
 * Counts requests in flight; the bar shows while any runs. Why not aria-busy here: a busy <main>
 * is left alone by screen readers, so a vote or a form sent would mute the page it changes;
 * app.js marks <main> busy only while it draws a new page.
 * @param {number} delta
 */
export function busy(delta) {
  running = Math.max(0, running + delta);
  const bar = document.getElementById('busy');
  if (bar) bar.hidden = running === 0;
}

/**
 * The line that shows messages for `el`: the nearest container with a direct `.local-status` child.
 * @param {Element} el
 * @returns {Element | null}
 */
function localLine(el) {
  for (let node = /** @type {Element | null} */ (el); node instanceof Element; node = node.parentElement) {
    const line = node.querySelector(':scope > .local-status');
    if (line) return line;
  }
  return null;
}

/**
 * Shows a message and reads it out; kind 'info' or 'error'. `near`: an element the user acted on;
 * the message then shows in its card's or form's own line instead of the page bar.
 * @param {string} message
 * @param {'info' | 'error'} [kind]
 * @param {Element | null} [near]
 */
export function announce(message, kind = 'info', near = null) {
  const region = document.getElementById('status');
  if (!region) return;
  const line = near ? localLine(near) : null;
  region.textContent = message;
  region.className = `status status-${kind}${line ? ' visually-hidden' : ''}`;
  if (line) {
    line.textContent = message;
    line.classList.toggle('local-status-error', kind === 'error');
  }
}

/** Clears the page bar (a new page is drawn): a message never outlives the page it was about. */
export function clearStatus() {
  const region = document.getElementById('status');
  if (!region) return;
  region.textContent = '';
  region.className = 'status';
}
