// "Abmelden": the one logout flow, for the header and the settings page.
import { h } from '../dom.js';
import { navigate } from '../router.js';
import { logout } from '../session.js';
import { announce } from '../status.js';

/** @import { Attrs } from '../dom.js' */

/**
 * A button that ends the session, says so and goes to the front page; attrs style it.
 * @param {Attrs} [attrs]
 */
export function logoutButton(attrs = {}) {
  const button = h('button', { type: 'button', ...attrs }, 'Abmelden');
  button.addEventListener('click', async () => {
    try {
      await logout();
      navigate('/');
      announce('Du bist abgemeldet.');
    } catch (err) {
      announce(/** @type {Error} */ (err).message, 'error');
    }
  });
  return button;
}
