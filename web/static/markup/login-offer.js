// What a logged-out visitor gets for an action that needs an account: the way to log in (or sign
// up) right where they are, and back here afterwards (?weiter=, same-origin only, see next-path.js).
import { h } from '../dom.js';
import { withNext } from '../next-path.js';

/**
 * "Zum Abstimmen bitte anmelden oder ein Konto anlegen. Danach geht es genau hier weiter."
 * @param {string} what the action, as a noun: "Abstimmen", "Antworten"
 * @param {string} back the address to come back to (backHere in next-path.js, in the browser)
 */
export function loginOffer(what, back) {
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
