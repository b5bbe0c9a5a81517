// "Folgen" / "Nicht mehr folgen" in an entry's menu: follows the entry and everything below it,
// so new replies there show in the notifications (docs/API.md "Following threads").
import { h } from '../dom.js';
import { followState, setFollowed } from '../follows.js';
import { announce } from '../status.js';

/**
 * @param {Api.Entry} entry
 * @param {number} uid the reader
 */
export function followButton(entry, uid) {
  // The label says what a click does; no aria-pressed as well, which would say it twice and contradict it.
  const button = h('button', { type: 'button', class: 'action follow-button' }, 'Folgen');
  let following = false;
  /** @param {boolean} on */
  const show = (on) => {
    following = on;
    button.textContent = on ? 'Nicht mehr folgen' : 'Folgen';
  };
  void followState(uid).then((state) => show(state.pids.includes(entry.pid)));
  button.addEventListener('click', async () => {
    try {
      await setFollowed(uid, entry.pid, !following);
    } catch (err) {
      announce(/** @type {Error} */ (err).message, 'error', button);
      return;
    }
    show(!following);
    announce(
      following
        ? 'Du folgst diesem Beitrag: Neue Antworten darunter erscheinen in deinen Benachrichtigungen.'
        : 'Du folgst diesem Beitrag nicht mehr.',
      'info',
      button,
    );
  });
  return button;
}
