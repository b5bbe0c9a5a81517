// Picking an image to send (a new entry's picture, an avatar): a preview before sending and a
// progress bar while it uploads.
import { h } from '../dom.js';
import { imageTypes } from '../limits.js';
import { fileField } from './form.js';

const notAnImage = 'Diese Datei ist kein Bild im Format JPEG, PNG, GIF oder WebP. Bitte wähle ein anderes.';

/**
 * An image file input with a preview of the chosen picture (a blob: URL, never uploaded until
 * the form is sent) and a button to take it out again. A file that is not an image in one of the
 * accepted formats is refused at once, before any upload, with the reason next to the field
 * (not a broken preview). onChange(file or null) after every choice.
 * @param {string} label
 * @param {string} name
 * @param {{ onChange?: (file: File | null) => void }} [options]
 */
export function imageField(label, name, { onChange = () => {} } = {}) {
  const f = fileField({ label, name, accept: imageTypes });
  const img = h('img', { class: 'image-preview-img', alt: 'Vorschau des gewählten Bildes' });
  const remove = h('button', { type: 'button', class: 'link-button' }, 'Bild entfernen');
  const preview = h('div', { class: 'image-preview', hidden: true }, img, remove);
  f.wrap.append(preview);
  let url = '';
  const clear = () => {
    if (url) URL.revokeObjectURL(url);
    url = '';
    img.removeAttribute('src');
    preview.hidden = true;
  };
  // Setting the value fires no change event, so the error set next stays.
  const refuse = () => {
    clear();
    f.input.value = '';
    const fileName = /** @type {HTMLElement} */ (f.wrap.querySelector('.file-name'));
    fileName.textContent = 'Keine Datei ausgewählt';
    f.setError(notAnImage);
    onChange(null);
  };
  img.addEventListener('load', () => {
    if (url) preview.hidden = false;
  });
  img.addEventListener('error', () => {
    if (url) refuse(); // the browser could not decode it: whatever its name says, it is no image
  });
  f.input.addEventListener('change', () => {
    clear();
    const file = f.input.files?.[0];
    if (!file) return onChange(null);
    // An empty type (an unknown file name ending) is left to the decoding check.
    if (file.type && !imageTypes.split(',').includes(file.type)) return refuse();
    url = URL.createObjectURL(file);
    img.src = url;
    onChange(file);
  });
  const reset = () => {
    f.input.value = '';
    f.input.dispatchEvent(new Event('change'));
  };
  remove.addEventListener('click', () => {
    reset();
    f.input.focus();
  });
  return { ...f, file: () => f.input.files?.[0] ?? null, reset };
}

/** A progress bar for uploads: set(fraction, or -1 for unknown) shows it, hide() hides it. */
export function uploadProgress() {
  const bar = h('progress', { max: 100, 'aria-label': 'Fortschritt beim Hochladen' });
  const wrap = h('div', { class: 'upload-progress', hidden: true }, bar, h('span', {}, 'Wird gesendet …'));
  return {
    wrap,
    /** @param {number} fraction 0…1, or -1 for unknown */
    set(fraction) {
      wrap.hidden = false;
      if (fraction < 0) bar.removeAttribute('value');
      else bar.value = Math.round(fraction * 100);
    },
    hide() {
      wrap.hidden = true;
      bar.value = 0;
    },
  };
}
