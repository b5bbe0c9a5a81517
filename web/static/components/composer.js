// Writing: a new thread or a reply, with a character counter (maxContentLength), an image with its preview,
// its description and upload progress (image-field.js).
import * as api from '../api.js';
import { h } from '../dom.js';
import { codePoints } from '../format.js';
import { maxAltLength, maxContentLength } from '../limits.js';
import { noteOwnThread } from '../follows.js';
import { me } from '../session.js';
import { announce } from '../status.js';
import { field, formMessage, onSubmit } from './form.js';
import { imageField, uploadProgress } from './image-field.js';
import { trustNote } from './trust-note.js';

/**
 * A labelled textarea whose hint counts code points like the server ("12 / 1000 Zeichen"), red when over.
 * @param {string} label
 * @param {string} [value]
 */
export function contentField(label, value = '') {
  const f = field({ label, name: 'content', tag: 'textarea', rows: 4, value, hint: ' ' });
  const counter = /** @type {HTMLElement} */ (f.wrap.querySelector('.field-hint'));
  counter.classList.add('counter');
  const update = () => {
    const n = codePoints(f.input.value);
    counter.textContent = `${n} / ${maxContentLength} Zeichen`;
    counter.classList.toggle('over', n > maxContentLength);
  };
  f.input.addEventListener('input', update);
  update();
  return f;
}

/**
 * The image's description for people who cannot see it (the Entry's `alt`).
 * @param {string} [value]
 */
export function altField(value = '') {
  return field({
    label: 'Bildbeschreibung (optional)',
    name: 'alt',
    value,
    hint: `Was zeigt das Bild? Für alle, die es nicht sehen können. Höchstens ${maxAltLength} Zeichen.`,
  });
}

/**
 * The form for a new entry; replyTo 0 starts a thread. onPosted({pid, …}) after 201.
 * @param {{ replyTo?: number, onPosted?: (created: Api.Entry) => void, label?: string }} options
 */
export function composer({ replyTo = 0, onPosted, label = replyTo ? 'Deine Antwort' : 'Dein Beitrag' }) {
  const content = contentField(label);
  const alt = altField();
  alt.wrap.hidden = true; // asked for only once there is an image to describe
  const image = imageField('Bild (optional)', 'file', {
    /** @param {File | null} file */
    onChange(file) {
      alt.wrap.hidden = !file;
      // "Der Beitrag ist leer" was about text and image together: an image answers it too.
      if (file) content.setError('');
    },
  });
  const progress = uploadProgress();
  const message = formMessage();
  const button = h('button', { type: 'submit', class: 'primary' }, replyTo ? 'Antworten' : 'Veröffentlichen');
  const form = h(
    'form',
    { class: 'composer', novalidate: true },
    trustNote(),
    content.wrap,
    image.wrap,
    alt.wrap,
    progress.wrap,
    message,
    h('div', { class: 'form-actions' }, button),
  );
  const fields = { content, file: image, alt };
  onSubmit(
    form,
    button,
    fields,
    message,
    async () => {
      const data = new FormData();
      data.append('content', content.input.value);
      if (replyTo) data.append('reply_to', String(replyTo));
      const file = image.file();
      if (file) {
        data.append('file', file);
        data.append('alt', alt.input.value);
      }
      progress.set(file ? 0 : -1);
      try {
        const created = await api.upload('/api/entry/create', data, (f) => progress.set(f));
        content.input.value = '';
        content.input.dispatchEvent(new Event('input'));
        image.reset();
        alt.input.value = '';
        announce(replyTo ? 'Antwort veröffentlicht.' : 'Beitrag veröffentlicht.');
        const author = me();
        if (!replyTo && author) void noteOwnThread(author.uid, created.pid); // its author follows it (the setting's default)
        onPosted?.(created);
      } finally {
        progress.hide();
      }
    },
    { 'entry.empty': 'content', 'upload.bad_type': 'file', 'upload.too_large': 'file' },
  );
  return form;
}
