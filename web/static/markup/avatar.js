// A user's avatar: the uploaded picture, or the initial on a colour picked from the name.
import { h } from '../dom.js';
import { avatarSize } from '../limits.js';

/** @param {string} name */
function colourIndex(name) {
  let sum = 0;
  for (const ch of name) sum = (sum * 31 + /** @type {number} */ (ch.codePointAt(0))) % 8;
  return sum;
}

/**
 * Decorative next to the name (alt ""); size: 'small', 'medium' or 'large'.
 * @param {string} username
 * @param {string} path the avatar's path under static/media/, '' for none
 * @param {'small' | 'medium' | 'large'} [size]
 */
export function avatar(username, path, size = 'small') {
  if (path)
    return h('img', {
      class: `avatar avatar-${size}`,
      src: `/static/media/${path}`,
      alt: '',
      width: avatarSize,
      height: avatarSize,
      loading: 'lazy',
    });
  const [first] = username;
  const initial = first ? first.toUpperCase() : '?';
  return h(
    'span',
    { class: `avatar avatar-${size} avatar-c${colourIndex(username || '?')}`, 'aria-hidden': 'true' },
    initial,
  );
}
