// How to reach whoever runs the board (BOARD_CONTACT, README "Settings"): the server puts it into
// the page as <body data-contact="…">; links in it become anchors, the rest stays text.
import { h } from './dom.js';
import { splitLinks } from './format.js';

/** The operator's contact as set, '' when the board has none. */
export function boardContact() {
  return document.body.dataset.contact ?? '';
}

/**
 * The contact as text with its links clickable.
 * @param {string} contact
 */
function contactNodes(contact) {
  return splitLinks(contact).map((part) =>
    typeof part === 'string' ? part : h('a', { href: part.url, rel: 'noopener' }, part.url),
  );
}

/**
 * For the login page: the board sends no e-mail, so a forgotten password needs a reset link from
 * whoever runs it; the hint says how to reach them, or to ask them when the board names no contact.
 */
export function forgottenPasswordHint() {
  const contact = boardContact();
  return h(
    'p',
    { class: 'note forgotten' },
    h('strong', {}, 'Passwort vergessen? '),
    'Das Board verschickt keine E-Mails. Wer es betreibt, kann dir einen Link zum Zurücksetzen geben',
    contact
      ? [' – so erreichst du den Betrieb: ', contactNodes(contact), '.']
      : ': Frag die Person, die dieses Board betreibt, danach.',
    // Recovery codes (docs/API.md "Recovery codes") need nobody.
    ' Hast du Wiederherstellungscodes, geht es ohne: ',
    h('a', { href: '/recover' }, 'Mit Wiederherstellungscode anmelden'),
    '.',
  );
}

/** The footer line, or null without a contact. */
export function footerContact() {
  const contact = boardContact();
  return contact ? h('p', { class: 'footer-contact' }, 'Kontakt zum Betrieb: ', contactNodes(contact)) : null;
}
