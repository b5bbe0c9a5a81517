// The action bar under an entry: votes, reply, bump, report, and edit/delete for its author.
// Forms open one at a time in the card's panel.
import * as api from '../api.js';
import { h, replace, uid } from '../dom.js';
import { maxReasonLength } from '../limits.js';
import { isModerator, me } from '../session.js';
import { announce } from '../status.js';
import { showTally, watchTally } from '../votes.js';
import { bumpButton } from './bump-button.js';
import { contentField } from './composer.js';
import { field, formMessage, onSubmit } from './form.js';
import { removeForm } from './mod-actions.js';

function voteButton(pid, mode, label) {
  const count = h('span', { class: 'vote-count' }, '–');
  const button = h('button', { type: 'button', class: `vote vote-${mode}`, 'aria-pressed': 'false' },
    h('span', { class: 'vote-icon', 'aria-hidden': 'true' }, mode === 'yes' ? '▲' : '▼'), ` ${label} `, count);
  button.addEventListener('click', async () => {
    try {
      showTally(await api.post(`/api/entry/${pid}/vote`, { mode }));
    } catch (err) {
      announce(err.message, 'error');
    }
  });
  return {
    button,
    show(n, selected) {
      count.textContent = String(n);
      button.setAttribute('aria-pressed', String(selected));
    },
  };
}

/** Yes and no, registered for the entry's tallies (votes.js fills them in for the whole page). */
function voteButtons(pid) {
  const yes = voteButton(pid, 'yes', 'Ja');
  const no = voteButton(pid, 'no', 'Nein');
  watchTally(pid, (tally) => {
    yes.show(tally.yes, tally.selected === 'yes');
    no.show(tally.no, tally.selected === 'no');
  });
  return h('span', { class: 'votes', role: 'group', 'aria-label': 'Abstimmung' }, yes.button, no.button);
}

/** Opens `build(close)` in the panel, or closes it when this button's form is already open. */
export function panelToggle(label, panel, build, className = '') {
  const button = h('button', { type: 'button', class: `action ${className}`, 'aria-expanded': 'false', 'aria-controls': panel.id }, label);
  const close = () => {
    panel.replaceChildren();
    button.setAttribute('aria-expanded', 'false');
    button.focus();
  };
  button.addEventListener('click', () => {
    const wasOpen = button.getAttribute('aria-expanded') === 'true';
    panel.replaceChildren();
    for (const other of panel.parentElement.querySelectorAll(`[aria-controls="${panel.id}"]`)) other.setAttribute('aria-expanded', 'false');
    if (wasOpen) return;
    panel.append(build(close));
    button.setAttribute('aria-expanded', 'true');
    panel.querySelector('textarea, input, button')?.focus();
  });
  return button;
}

function cancelButton(close) {
  return h('button', { type: 'button', onclick: close }, 'Abbrechen');
}

function loginNote(what) {
  return h('p', { class: 'note' }, `Zum ${what} bitte `, h('a', { href: `/login?weiter=${encodeURIComponent(location.pathname)}` }, 'anmelden'), '.');
}

function reportForm(pid, close) {
  const reason = field({ label: 'Grund (optional)', name: 'reason', tag: 'textarea', rows: 2, hint: `Höchstens ${maxReasonLength} Zeichen.` });
  const message = formMessage();
  const send = h('button', { type: 'submit', class: 'primary' }, 'Meldung senden');
  const form = h('form', { class: 'panel-form' }, reason.wrap, message, h('div', { class: 'form-actions' }, send, cancelButton(close)));
  onSubmit(form, send, { reason }, message, async () => {
    await api.post(`/api/entry/${pid}/report`, { reason: reason.input.value });
    close();
    announce('Danke! Die Meldung ist eingegangen.');
  });
  return form;
}

function editForm(entry, close, onEdited) {
  const content = contentField('Text bearbeiten', entry.content);
  const message = formMessage();
  const save = h('button', { type: 'submit', class: 'primary' }, 'Speichern');
  const form = h('form', { class: 'panel-form' }, content.wrap, message, h('div', { class: 'form-actions' }, save, cancelButton(close)));
  onSubmit(form, save, { content }, message, async () => {
    const edited = await api.post(`/api/entry/${entry.pid}/edit`, { content: content.input.value });
    close();
    onEdited(edited.content);
    announce('Änderung gespeichert.');
  }, { 'entry.empty': 'content' });
  return form;
}

function deleteConfirm(entry, close, onDeleted) {
  const message = formMessage();
  const yes = h('button', { type: 'button', class: 'danger' }, 'Ja, löschen');
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    try {
      await api.post(`/api/entry/${entry.pid}/delete`);
      announce('Beitrag gelöscht.');
      onDeleted();
    } catch (err) {
      message.textContent = err.message;
      yes.disabled = false;
    }
  });
  return h('div', { class: 'panel-form' },
    h('p', {}, 'Diesen Beitrag wirklich löschen? Das lässt sich nicht rückgängig machen.'),
    message, h('div', { class: 'form-actions' }, yes, cancelButton(close)));
}

/** The bar; a deleted entry's has only the link to its replies. Moderators may remove any live entry. */
export function entryActions(entry, { panel, hideReply, replyForm, onEdited, onDeleted, onRemoved }) {
  panel.id = uid('panel');
  const bar = h('div', { class: 'entry-actions' });
  const threadLink = entry.reply_count > 0 && location.pathname !== `/e/${entry.pid}`
    ? h('a', { class: 'action', href: `/e/${entry.pid}` }, entry.reply_count === 1 ? '1 Antwort ansehen' : `Alle ${entry.reply_count} Antworten`)
    : null;
  if (entry.deleted) return replace(bar, threadLink);
  const user = me();
  const own = user && entry.uid === user.uid;
  return replace(bar,
    voteButtons(entry.pid),
    hideReply ? null : panelToggle('Antworten', panel, () => (user ? replyForm() : loginNote('Antworten'))),
    threadLink,
    user ? bumpButton(entry) : null,
    panelToggle('Melden', panel, (close) => reportForm(entry.pid, close)),
    own ? panelToggle('Bearbeiten', panel, (close) => editForm(entry, close, onEdited)) : null,
    own ? panelToggle('Löschen', panel, (close) => deleteConfirm(entry, close, onDeleted), 'danger-text') : null,
    isModerator(user) ? panelToggle('Entfernen', panel, (close) => removeForm(entry.pid, {
      onCancel: close,
      onDone(reason) {
        announce('Beitrag entfernt.');
        onRemoved(reason);
      },
    }), 'danger-text') : null);
}
