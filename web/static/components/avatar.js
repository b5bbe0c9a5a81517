// A user's avatar: the uploaded picture, or the initial on a colour picked from the name.
import { h } from '../dom.js';
import { avatarSize } from '../limits.js';

function colourIndex(name) {
  let sum = 0;
  for (const ch of name) sum = (sum * 31 + ch.codePointAt(0)) % 8;
  return sum;
}

/** Decorative next to the name (alt ""); size: 'small', 'medium' or 'large'. */
export function avatar(username, path, size = 'small') {
  if (path) return h('img', { class: `avatar avatar-${size}`, src: `/static/media/${path}`, alt: '', width: avatarSize, height: avatarSize, loading: 'lazy' });
  const initial = username ? [...username][0].toUpperCase() : '?';
  return h('span', { class: `avatar avatar-${size} avatar-c${colourIndex(username || '?')}`, 'aria-hidden': 'true' }, initial);
}
