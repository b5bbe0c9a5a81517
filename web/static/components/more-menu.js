// "Mehr": the less-used actions of a card in a fold-out list, so the action row fits on one line at
// every width. A disclosure (a button with aria-expanded and the list after it), not an ARIA menu:
// Tab and Enter work as everywhere else on the page. The list opens in the flow under the row
// (app.css), so it covers nothing.
import { h, uid } from '../dom.js';

/**
 * The open lists' close functions by their wrapper: a click or focus anywhere else folds them.
 * @type {Map<HTMLElement, () => void>}
 */
const open = new Map();
let listening = false;

/** @param {Event} event */
function foldOthers(event) {
  for (const [wrap, close] of open) if (!wrap.contains(/** @type {Node | null} */ (event.target))) close();
}

/** From the first list on: the page listens for clicks and focus elsewhere. */
function listenForOutside() {
  if (listening) return;
  listening = true;
  document.addEventListener('click', foldOthers);
  document.addEventListener('focusin', foldOthers);
}

/**
 * An item's action by the first word of its button's (or link's) label, "Hochholen" of "↑ Hochholen":
 * never the text beside it (the bump's "wieder möglich in 5 Minuten").
 * @param {HTMLElement} item
 */
function actionName(item) {
  const action = item.matches('button, a') ? item : (item.querySelector('button, a') ?? item);
  return (action.textContent ?? '').replace(/^[^\p{L}]+/u, '').split(/\s+/)[0] ?? '';
}

/**
 * The button and its list; `items` are buttons (null entries are left out). Null when none remain;
 * a single item stands alone in the row (`wrap` and `button` are that item).
 * @param {(HTMLElement | null)[]} items
 * @param {string} [label]
 * @returns {{ wrap: HTMLElement, button: HTMLElement } | null}
 */
export function moreMenu(items, label = 'Mehr') {
  const present = /** @type {HTMLElement[]} */ (items.filter(Boolean));
  if (present.length === 0) return null;
  // A list of one hides its only action behind a second click (a visitor's "Melden"): shown directly.
  const [only] = present;
  if (only && present.length === 1) return { wrap: only, button: only };
  listenForOutside();
  const list = h(
    'ul',
    { class: 'more-list', id: uid('more'), hidden: true },
    present.map((item) => h('li', {}, item)),
  );
  // The first two actions' names beside "Mehr" (where there is room), so a reader sees what the
  // list holds without opening it: bump, report and mute were found by few behind a bare "Mehr".
  const names = present.map(actionName);
  const hint = `${names.slice(0, 2).join(', ')}${names.length > 2 ? ' …' : ''}`;
  const button = h(
    'button',
    { type: 'button', class: 'action more-button', 'aria-expanded': 'false', 'aria-controls': list.id },
    label,
    // Seen, not part of the name: the list names its actions to a screen reader when it opens, and
    // "Melden" or "Hochholen" must name only the action itself.
    h('span', { class: 'more-hint', 'aria-hidden': 'true' }, `: ${hint}`),
    h('span', { class: 'more-caret', 'aria-hidden': 'true' }, ' ▾'),
  );
  const wrap = h('span', { class: 'more' }, button, list);
  /** @param {boolean} isOpen */
  const setOpen = (isOpen) => {
    list.hidden = !isOpen;
    button.setAttribute('aria-expanded', String(isOpen));
    if (isOpen) open.set(wrap, () => setOpen(false));
    else open.delete(wrap);
  };
  button.addEventListener('click', () => setOpen(list.hidden));
  // An item that opens a form (its own click handler runs first) or leaves folds the list away; one
  // that answers in place (a bump and its cooldown) keeps it open.
  list.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('[aria-controls], a')) setOpen(false);
  });
  wrap.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || list.hidden) return;
    setOpen(false);
    button.focus();
  });
  return { wrap, button };
}
