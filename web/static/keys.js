// Keyboard shortcuts: j and k move between the entries of a page, r replies to the current one,
// ? lists them. Single keys, so they never fire while typing in a field, and the list can switch
// them off (WCAG 2.1.4: a screen reader's own single-key commands must be able to win).
import { h, uid } from './dom.js';

const storageKey = 'board.shortcuts';

const shortcuts = [
  ['j', 'zum nächsten Beitrag'],
  ['k', 'zum vorigen Beitrag'],
  ['r', 'auf den gewählten Beitrag antworten'],
  ['?', 'diese Liste zeigen'],
];

function enabled() {
  try {
    return localStorage.getItem(storageKey) !== 'off';
  } catch {
    return true; // storage refused (private mode): the default
  }
}

/** @param {boolean} on */
function setEnabled(on) {
  try {
    if (on) localStorage.removeItem(storageKey);
    else localStorage.setItem(storageKey, 'off');
  } catch {
    // Nothing to keep it in: it holds for this page.
  }
}

/**
 * Whether the key went to something that takes text (or a choice): then it is the user's, not ours.
 * @param {EventTarget | null} target
 */
function typing(target) {
  return (
    target instanceof Element &&
    Boolean(target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])'))
  );
}

function entries() {
  return [.../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#main article.entry'))].filter(
    (card) => card.getClientRects().length > 0,
  );
}

/**
 * The entry that holds the focus, or null.
 * @returns {HTMLElement | null}
 */
function currentEntry() {
  const active = document.activeElement;
  return active instanceof Element ? active.closest('#main article.entry') : null;
}

/** @param {HTMLElement} card */
function focusEntry(card) {
  if (!card.hasAttribute('tabindex')) card.tabIndex = -1;
  card.focus();
  card.scrollIntoView({ block: 'nearest' });
}

/**
 * j/k: from the focused entry, else from the first one on screen.
 * @param {number} step
 */
function move(step) {
  const list = entries();
  if (list.length === 0) return;
  const current = currentEntry();
  let index;
  if (current && list.includes(current)) index = Math.min(list.length - 1, Math.max(0, list.indexOf(current) + step));
  else
    index = Math.max(
      0,
      list.findIndex((card) => card.getBoundingClientRect().bottom > 0),
    );
  focusEntry(/** @type {HTMLElement} */ (list[index]));
}

/** r: the entry's own reply form (or the login offer), else the page's reply box. */
function reply() {
  const current = currentEntry() ?? (location.pathname.startsWith('/e/') ? entries()[0] : null);
  const button =
    current &&
    [
      .../** @type {NodeListOf<HTMLButtonElement>} */ (current.querySelectorAll(':scope > .entry-actions > button')),
    ].find((b) => b.textContent === 'Antworten');
  if (current && button) {
    if (button.getAttribute('aria-expanded') !== 'true') button.click();
    else {
      /** @type {HTMLTextAreaElement | null} */ (current.querySelector('.entry-panel textarea'))?.focus();
    }
    return;
  }
  /** @type {HTMLTextAreaElement | null} */
  const box = document.querySelector('#main section.write textarea');
  if (box) box.focus();
}

/** @type {HTMLDialogElement | null} */
let dialog = null;

/** @returns {HTMLDialogElement} */
function keysDialog() {
  if (dialog) return dialog;
  const headingId = uid('keys');
  const toggleId = uid('keys-on');
  const toggle = h('input', { type: 'checkbox', id: toggleId });
  toggle.addEventListener('change', () => setEnabled(toggle.checked));
  const close = h('button', { type: 'button', class: 'primary' }, 'Schließen');
  const box = h(
    'dialog',
    { class: 'keys-dialog card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, 'Tastenkürzel'),
    h(
      'dl',
      { class: 'keys' },
      shortcuts.map(([key, what]) => [h('dt', {}, h('kbd', {}, key)), h('dd', {}, what)]),
    ),
    h('p', { class: 'muted small' }, 'Sie wirken nicht, während du in ein Feld schreibst.'),
    h('div', { class: 'field field-check' }, toggle, h('label', { for: toggleId }, 'Tastenkürzel verwenden')),
    h('div', { class: 'form-actions' }, close),
  );
  close.addEventListener('click', () => box.close());
  document.body.append(box);
  dialog = box;
  return box;
}

/** Opens the list of shortcuts (also from the footer's button, which works when they are off). */
export function showShortcuts() {
  const box = keysDialog();
  const toggle = /** @type {HTMLInputElement} */ (box.querySelector('input[type="checkbox"]'));
  toggle.checked = enabled();
  if (!box.open) box.showModal();
}

/** @param {KeyboardEvent} event */
function onKey(event) {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  if (typing(event.target) || dialog?.open || !enabled()) return;
  /** @type {Record<string, () => void>} */
  const actions = { j: () => move(1), k: () => move(-1), r: reply, '?': showShortcuts };
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault(); // "r" must not end up in the reply field it opens
  action();
}

/** Listens for the shortcuts on the whole page. */
export function startShortcuts() {
  document.addEventListener('keydown', onKey);
}
