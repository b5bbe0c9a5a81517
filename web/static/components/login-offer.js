// What a logged-out visitor gets for an action that needs an account: the way to log in (or sign
// up) right where they are, and back to this very entry afterwards (?weiter=, same-origin only,
// see next-path.js).
import { h } from '../dom.js';
import { withNext } from '../next-path.js';

/**
 * The address to come back to: this page, scrolled to the entry.
 * @param {number} pid
 */
function backHere(pid) {
  return `${location.pathname}${location.search}${pid ? `#e${pid}` : ''}`;
}

/**
 * "Zum Abstimmen bitte anmelden oder ein Konto anlegen. Danach geht es hier weiter."
 * @param {string} what the action, as a noun: "Abstimmen", "Antworten"
 * @param {number} [pid] the entry to come back to
 */
export function loginOffer(what, pid = 0) {
  const back = backHere(pid);
  return h(
    'p',
    { class: 'note login-offer' },
    `Zum ${what} bitte `,
    h('a', { href: withNext('/login', back) }, 'anmelden'),
    ' oder ',
    h('a', { href: withNext('/register', back) }, 'ein Konto anlegen'),
    '. Danach geht es genau hier weiter.',
  );
}
