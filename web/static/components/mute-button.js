// Muting an account from one of its entries or its profile. The cards of the page fold or unfold
// at once (entry.js listens for the event); the muted account is never told.
import { h } from '../dom.js';
import { setMuted } from '../session.js';
import { announce } from '../status.js';

/**
 * A mute or unmute that succeeded.
 * @typedef {{ uid: number, username: string, muted: boolean }} MuteChange
 */

/** Fired on document with detail {uid, username, muted} (a MuteChange) after a mute or unmute succeeded. */
export const muteChangeEvent = 'board:mute-change';

/**
 * "Anna stummschalten" or "Stummschaltung von Anna aufheben" for account {uid, username};
 * onChanged({uid, username, muted}) after the change, besides the event.
 * @param {Api.MutedAccount} account
 * @param {boolean} muted
 * @param {string} [className]
 * @param {(change: MuteChange) => void} [onChanged]
 */
export function muteButton(account, muted, className = 'action', onChanged = () => {}) {
  const label = muted ? `Stummschaltung von ${account.username} aufheben` : `${account.username} stummschalten`;
  const button = h('button', { type: 'button', class: className }, label);
  button.addEventListener('click', async () => {
    try {
      await setMuted(account, !muted);
    } catch (err) {
      announce(/** @type {Error} */ (err).message, 'error', button);
      return;
    }
    /** @type {MuteChange} */
    const change = { uid: account.uid, username: account.username, muted: !muted };
    document.dispatchEvent(new CustomEvent(muteChangeEvent, { detail: change }));
    onChanged(change);
  });
  return button;
}

/**
 * What the page says after a change.
 * @param {MuteChange} change
 */
export function muteChangeText({ username, muted }) {
  return muted
    ? `${username} ist stummgeschaltet: Beiträge dieses Kontos sind jetzt eingeklappt. Aufheben kannst du das in den Einstellungen.`
    : `Die Stummschaltung von ${username} ist aufgehoben.`;
}
