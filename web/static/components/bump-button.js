// "Hochholen" (bump) with its cooldown: from the entry's own fields at first, then from the
// server's retry_after (200) or the 429 body.
import * as api from '../api.js';
import { h, uid } from '../dom.js';
import { inDuration } from '../format.js';
import { bumpCooldownUntil } from '../rules.js';
import { announce } from '../status.js';

/** @import { ApiError } from '../api.js' */

const now = () => Math.floor(Date.now() / 1000);

/**
 * During the cooldown the button stays focusable (aria-disabled, not disabled) so keyboard
 * users keep their place; a click then only says how long to wait.
 * @param {Api.Entry} entry
 */
export function bumpButton(entry) {
  let until = bumpCooldownUntil(entry);
  const info = h('span', { class: 'bump-info', id: uid('bump') });
  const button = h('button', { type: 'button', class: 'action bump', 'aria-describedby': info.id }, '↑ Hochholen');
  const wrap = h('span', { class: 'bump-wrap' }, button, info);
  const show = () => {
    const left = until - now();
    const waiting = left > 0;
    button.setAttribute('aria-disabled', String(waiting));
    info.textContent = waiting ? `wieder möglich ${inDuration(left)}` : '';
  };
  button.addEventListener('click', async () => {
    if (until - now() > 0) {
      announce(`Hochholen ist ${inDuration(until - now())} wieder möglich.`, 'error', button);
      return;
    }
    try {
      /** @type {{ retry_after: number }} */
      const bumped = await api.post(`/api/entry/${entry.pid}/bump`);
      until = now() + bumped.retry_after;
      announce('Beitrag nach oben geholt.', 'info', button);
    } catch (err) {
      const failure = /** @type {ApiError} */ (err);
      if (failure.code === 'entry.bump_cooldown' && failure.body.retry_after) until = now() + failure.body.retry_after;
      announce(failure.message, 'error', button);
    }
    show();
  });
  show();
  return wrap;
}
