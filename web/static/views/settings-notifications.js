// Settings: following one's own new threads, and push notifications on this device (docs/API.md
// "Following threads", "Web Push").
import * as api from '../api.js';
import { h } from '../dom.js';
import { announce } from '../status.js';
import { onClickBusy } from '../components/form.js';
import { section } from '../components/section.js';
import { pushSupported, subscribePush, unsubscribePush } from '../push.js';

/** @import { FollowState } from '../follows.js' */

/** The checkbox of the author's default follow, stored on the server per account. */
async function ownThreadsField() {
  /** @type {FollowState} */
  const state = await api.get('/api/user/following/state');
  const box = h('input', { type: 'checkbox', id: 'follow-own-threads', checked: state.own_threads === 1 });
  box.addEventListener('change', async () => {
    try {
      await api.post('/api/user/following/own-threads', { follow: box.checked ? '1' : '0' });
      announce(
        box.checked ? 'Neuen eigenen Threads folgst du ab jetzt.' : 'Neuen eigenen Threads folgst du nicht mehr.',
        'info',
        box,
      );
    } catch (err) {
      box.checked = !box.checked;
      announce(/** @type {Error} */ (err).message, 'error', box);
    }
  });
  return h(
    'p',
    { class: 'check-field' },
    box,
    ' ',
    h('label', { for: 'follow-own-threads' }, 'Eigenen neuen Threads folgen (Antworten auf jeder Ebene melden)'),
  );
}

/** On or off for this device; the other devices show in the list of sessions. */
async function pushControls() {
  /** @type {{ enabled: 0 | 1, public_key: string, subscribed: 0 | 1 }} */
  const state = await api.get('/api/user/push');
  // The operator turned Web Push off (BOARD_PUSH=0): no switch that could not work.
  if (state.enabled === 0)
    return h('p', { class: 'muted' }, 'Push-Benachrichtigungen sind auf diesem Board ausgeschaltet.');
  if (!pushSupported())
    return h('p', { class: 'muted' }, 'Dieser Browser kann keine Push-Benachrichtigungen empfangen.');
  let on = state.subscribed === 1;
  const button = h('button', { type: 'button' });
  const show = () => {
    button.textContent = on ? 'Push auf diesem Gerät ausschalten' : 'Push auf diesem Gerät einschalten';
  };
  show();
  onClickBusy(button, async () => {
    if (on) await unsubscribePush();
    else await subscribePush();
    on = !on;
    show();
    announce(
      on ? 'Dieses Gerät bekommt jetzt Push-Benachrichtigungen.' : 'Push auf diesem Gerät ist aus.',
      'info',
      button,
    );
  });
  return h('div', { class: 'form-actions' }, button);
}

export async function notificationsSection() {
  return section(
    'notify-settings-heading',
    'Benachrichtigungen',
    await ownThreadsField(),
    h(
      'p',
      { class: 'muted' },
      'Push zeigt deine Benachrichtigungen auch bei geschlossener Seite. Gesendet wird nur, was auch die Benachrichtigungsseite zeigt; wenn du dich abmeldest, endet es für dieses Gerät.',
    ),
    await pushControls(),
  );
}
