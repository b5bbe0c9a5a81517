// The action row under an entry: the votes, "Antworten" and "Mehr" (bump, follow, report, mute, edit,
// delete, remove; a visitor's one action, "Melden", stands in the row), and the way to its replies. Forms open one at a time in the card's panel;
// results show in the card's own message line.
import * as api from '../api.js';
import { withProofOfWork } from '../pow.js';
import { h, replace, uid } from '../dom.js';
import { maxReportReasonLength } from '../limits.js';
import { repliesLink } from '../markup/entry.js';
import { loginOffer } from '../markup/login-offer.js';
import { backHere } from '../next-path.js';
import { isModerator, isMuted, me } from '../session.js';
import { announce } from '../status.js';
import { showTally, watchTally } from '../votes.js';
import { bumpButton } from './bump-button.js';
import { followButton } from './follow-button.js';
import { altField, contentField } from './composer.js';
import { field, formMessage, isWaiting, onSubmit, setWaiting } from './form.js';
import { removeForm } from './mod-actions.js';
import { moreMenu } from './more-menu.js';
import { muteButton } from './mute-button.js';

/**
 * Shows `content` in the panel (closing any open form) and moves focus into it.
 * @param {HTMLElement} panel
 * @param {HTMLElement} content
 */
function openInPanel(panel, content) {
  panel.replaceChildren(content);
  const card = /** @type {HTMLElement} */ (panel.parentElement);
  for (const other of card.querySelectorAll(`[aria-controls="${panel.id}"]`))
    other.setAttribute('aria-expanded', 'false');
  const first = /** @type {HTMLElement | null} */ (panel.querySelector('textarea, input, button, a'));
  first?.focus();
}

/**
 * @param {Api.Entry} entry
 * @param {'yes' | 'no'} mode
 * @param {string} label
 * @param {HTMLElement} panel
 */
function voteButton(entry, mode, label, panel) {
  const count = h('span', { class: 'vote-count' }, '–');
  const button = h(
    'button',
    { type: 'button', class: `vote vote-${mode}`, 'aria-pressed': 'false' },
    h('span', { class: 'vote-icon', 'aria-hidden': 'true' }, mode === 'yes' ? '▲' : '▼'),
    ` ${label} `,
    count,
  );
  button.addEventListener('click', async () => {
    // Logged out: the way to log in, right here, and back to this entry afterwards.
    if (!me()) return openInPanel(panel, loginOffer('Abstimmen', backHere(entry.pid)));
    try {
      showTally(await api.post(`/api/entry/${entry.pid}/vote`, { mode }));
    } catch (err) {
      announce(/** @type {Error} */ (err).message, 'error', button);
    }
  });
  return {
    button,
    /**
     * @param {number} n
     * @param {boolean} selected
     */
    show(n, selected) {
      count.textContent = String(n);
      button.setAttribute('aria-pressed', String(selected));
    },
  };
}

/**
 * Yes and no, registered for the entry's tallies (votes.js fills them in for the whole page).
 * @param {Api.Entry} entry
 * @param {HTMLElement} panel
 */
function voteButtons(entry, panel) {
  const yes = voteButton(entry, 'yes', 'Ja', panel);
  const no = voteButton(entry, 'no', 'Nein', panel);
  watchTally(entry.pid, (tally) => {
    yes.show(tally.yes, tally.selected === 'yes');
    no.show(tally.no, tally.selected === 'no');
  });
  return h('span', { class: 'votes', role: 'group', 'aria-label': 'Abstimmung' }, yes.button, no.button);
}

/**
 * Opens `build(close)` in the panel, or closes it when this button's form is already open.
 * `returnFocus`: where focus goes when the form closes (a button inside a folded list cannot take it).
 * @param {string} label
 * @param {HTMLElement} panel
 * @param {(close: () => void) => HTMLElement} build
 * @param {string} [className]
 * @param {(() => HTMLElement) | null} [returnFocus]
 */
export function panelToggle(label, panel, build, className = '', returnFocus = null) {
  const button = h(
    'button',
    { type: 'button', class: `action ${className}`, 'aria-expanded': 'false', 'aria-controls': panel.id },
    label,
  );
  const close = () => {
    panel.replaceChildren();
    button.setAttribute('aria-expanded', 'false');
    (returnFocus?.() ?? button).focus();
  };
  button.addEventListener('click', () => {
    if (button.getAttribute('aria-expanded') === 'true') return close();
    openInPanel(panel, build(close));
    button.setAttribute('aria-expanded', 'true');
  });
  return button;
}

/** @param {() => void} close */
function cancelButton(close) {
  return h('button', { type: 'button', onclick: close }, 'Abbrechen');
}

/**
 * @param {number} pid
 * @param {() => void} close
 */
function reportForm(pid, close) {
  const reason = field({
    label: 'Grund (optional)',
    name: 'reason',
    tag: 'textarea',
    rows: 2,
    hint: `Höchstens ${maxReportReasonLength} Zeichen.`,
  });
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'primary' }, 'Meldung senden');
  const form = h(
    'form',
    { class: 'panel-form' },
    reason.wrap,
    message,
    h('div', { class: 'form-actions' }, send, cancelButton(close)),
  );
  onSubmit(form, send, { reason }, message, async () => {
    // Anonymous reports may need a solved challenge (docs/API.md "Proof of work").
    await withProofOfWork((altcha) =>
      api.post(`/api/entry/${pid}/report`, { reason: reason.input.value, ...(altcha ? { altcha } : {}) }),
    );
    const card = form.closest('article');
    close();
    announce('Danke! Die Meldung ist eingegangen.', 'info', card);
  });
  return form;
}

/**
 * @param {Api.Entry} entry
 * @param {() => void} close
 * @param {(edited: Api.Entry) => void} onEdited
 */
function editForm(entry, close, onEdited) {
  const content = contentField('Text bearbeiten', entry.content);
  const alt = entry.filepath ? altField(entry.alt ?? '') : null;
  const message = formMessage();
  const save = h('button', { type: 'submit', class: 'primary' }, 'Speichern');
  const form = h(
    'form',
    { class: 'panel-form' },
    content.wrap,
    alt?.wrap,
    message,
    h('div', { class: 'form-actions' }, save, cancelButton(close)),
  );
  onSubmit(
    form,
    save,
    alt ? { content, alt } : { content },
    message,
    async () => {
      /** @type {Record<string, string>} */
      const fields = alt ? { content: content.input.value, alt: alt.input.value } : { content: content.input.value };
      const edited = await api.post(`/api/entry/${entry.pid}/edit`, fields);
      const card = form.closest('article');
      close();
      onEdited(edited);
      announce('Änderung gespeichert.', 'info', card);
    },
    { 'entry.empty': 'content' },
  );
  return form;
}

/**
 * @param {Api.Entry} entry
 * @param {() => void} close
 * @param {() => HTMLElement} onDeleted returns the tombstone that took the card's place
 */
function deleteConfirm(entry, close, onDeleted) {
  const message = formMessage();
  const yes = h('button', { type: 'button', class: 'danger' }, 'Ja, löschen');
  yes.addEventListener('click', async () => {
    if (isWaiting(yes)) return;
    setWaiting(yes, true);
    try {
      await api.post(`/api/entry/${entry.pid}/delete`);
      announce('Beitrag gelöscht.', 'info', onDeleted());
    } catch (err) {
      message.textContent = /** @type {Error} */ (err).message;
      setWaiting(yes, false);
    }
  });
  return h(
    'div',
    { class: 'panel-form' },
    h('p', {}, 'Diesen Beitrag wirklich löschen? Das lässt sich nicht rückgängig machen.'),
    message,
    h('div', { class: 'form-actions' }, yes, cancelButton(close)),
  );
}

/**
 * The row; a deleted entry's has only the link to its replies. On its own page (onOwnPage) neither
 * that link nor "Antworten": the page has its reply form. onDeleted() and onRemoved(reason) return
 * the card that took its place. Moderators may remove any live entry.
 * @param {Api.Entry} entry
 * @param {{ panel: HTMLElement, onOwnPage?: boolean, replyForm: () => HTMLElement, onEdited: (edited: Api.Entry) => void,
 *   onDeleted: () => HTMLElement, onRemoved: (reason: string) => HTMLElement }} parts
 */
export function entryActions(entry, { panel, onOwnPage, replyForm, onEdited, onDeleted, onRemoved }) {
  panel.id = uid('panel');
  const bar = h('div', { class: 'entry-actions' });
  if (entry.deleted) return replace(bar, repliesLink(entry, { onOwnPage }));
  const user = me();
  const own = user && entry.uid === user.uid;
  /** @type {{ wrap: HTMLElement, button: HTMLElement } | null} */
  let menu = null;
  const backToMenu = () => /** @type {HTMLElement} */ (menu?.button);
  menu = moreMenu([
    user ? bumpButton(entry) : null,
    user ? followButton(entry, user.uid) : null,
    panelToggle('Melden', panel, (close) => reportForm(entry.pid, close), '', backToMenu),
    user && !own && entry.username
      ? muteButton({ uid: entry.uid, username: entry.username }, isMuted(entry.uid))
      : null,
    own ? panelToggle('Bearbeiten', panel, (close) => editForm(entry, close, onEdited), '', backToMenu) : null,
    own
      ? panelToggle('Löschen', panel, (close) => deleteConfirm(entry, close, onDeleted), 'danger-text', backToMenu)
      : null,
    isModerator(user)
      ? panelToggle(
          'Entfernen',
          panel,
          (close) =>
            removeForm(entry.pid, {
              onCancel: close,
              onDone(reason) {
                announce('Beitrag entfernt.', 'info', onRemoved(reason));
              },
            }),
          'danger-text',
          backToMenu,
        )
      : null,
  ]);
  return replace(
    bar,
    voteButtons(entry, panel),
    onOwnPage
      ? null
      : panelToggle('Antworten', panel, () => (user ? replyForm() : loginOffer('Antworten', backHere(entry.pid)))),
    menu?.wrap,
    repliesLink(entry, { onOwnPage }),
  );
}
