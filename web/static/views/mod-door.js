// The door on "/mod" (docs/API.md "Registration"): the registration mode in force with a switch,
// the accounts of the last wave the surge gate stopped, and the applications waiting, oldest
// first, each with approve and reject.
import * as api from '../api.js';
import { h } from '../dom.js';
import { counted, number } from '../format.js';
import { maxModReasonLength } from '../limits.js';
import { registrationModeNames } from '../modlog-words.js';
import { announce } from '../status.js';
import { timeAgo } from '../components/entry.js';

/**
 * The modes by their German names (as the moderation log names them), with what they mean.
 * @type {Record<string, string>}
 */
const modeNames = {
  open: `${registrationModeNames.open} (jede und jeder kann sich registrieren)`,
  approval: `${registrationModeNames.approval} (Anträge prüft die Moderation)`,
  invite: registrationModeNames.invite,
  closed: registrationModeNames.closed,
};

/** @type {Record<string, string>} */
const setByNames = {
  config: 'Einstellung des Servers',
  moderator: 'Moderation',
  operator: 'Betrieb (Kommandozeile)',
  surge: 'Schutz vor einem Ansturm',
};

/**
 * One application with its actions.
 * @param {Api.Application} application
 */
function applicationItem(application) {
  const result = h('p', { class: 'local-status', role: 'status' });
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    maxlength: maxModReasonLength,
    'aria-label': `Grund für ${application.username}`,
  });
  /** @param {'approve' | 'reject'} action */
  const decide = (action) => async () => {
    try {
      await api.post(
        `/api/mod/applications/${encodeURIComponent(application.username)}/${action}`,
        action === 'reject' ? { reason: reason.value } : {},
      );
      actions.remove();
      announce(
        action === 'approve'
          ? `${application.username} ist freigeschaltet.`
          : `Antrag von ${application.username} abgelehnt.`,
        'info',
        result,
      );
    } catch (err) {
      announce(err instanceof api.ApiError ? err.message : String(err), 'error', result);
    }
  };
  const approve = h('button', { type: 'button', class: 'small-button' }, 'Freischalten');
  const reject = h('button', { type: 'button', class: 'small-button danger-text' }, 'Ablehnen');
  approve.addEventListener('click', decide('approve'));
  reject.addEventListener('click', decide('reject'));
  const actions = h('div', { class: 'entry-actions' }, approve, h('label', {}, 'Grund (freiwillig) ', reason), reject);
  return h(
    'li',
    { class: 'card', 'data-username': application.username },
    h('h3', {}, application.username),
    h(
      'p',
      { class: 'muted small' },
      timeAgo(application.created_at),
      ` · ${counted(application.same_minute, 'Registrierung', 'Registrierungen')} in derselben Minute, ${number(application.same_hour)} in der Stunde davor`,
    ),
    h('p', { class: 'application' }, application.application),
    actions,
    result,
  );
}

/**
 * Rejects the applications shown (a page, oldest first) in one step: a wave of bots fills the
 * queue faster than anyone decides one by one (docs/API.md "Registration", for moderators).
 * The span runs from the first shown registration time to the last, so later registrations stay
 * waiting (to the second: docs/API.md). Then the section is drawn again.
 * @param {Api.Application[]} shown
 * @param {() => Promise<void>} redraw
 */
function rejectShown(shown, redraw) {
  const result = h('p', { class: 'local-status', role: 'status' });
  const reason = h('input', { type: 'text', name: 'reason', maxlength: maxModReasonLength });
  const button = h('button', { type: 'button', class: 'small-button danger-text' }, `Alle ${shown.length} ablehnen`);
  button.addEventListener('click', async () => {
    try {
      /** @type {{ rejected: number }} */
      const done = await api.post('/api/mod/applications/reject', {
        from: String(shown[0]?.created_at ?? 0),
        to: String(shown.at(-1)?.created_at ?? 0),
        reason: reason.value,
      });
      await redraw();
      announce(`${counted(done.rejected, 'Antrag', 'Anträge')} abgelehnt.`);
    } catch (err) {
      announce(err instanceof api.ApiError ? err.message : String(err), 'error', result);
    }
  });
  return h(
    'div',
    { class: 'entry-actions reject-shown' },
    h('label', {}, 'Grund für alle (freiwillig) ', reason),
    button,
    result,
  );
}

/** The mode switch. @param {Api.RegistrationState} state */
function modeSwitch(state) {
  const select = h(
    'select',
    { name: 'mode', 'aria-label': 'Registrierung' },
    Object.entries(modeNames).map(([value, text]) => h('option', { value, selected: value === state.mode }, text)),
  );
  const result = h('span', { class: 'muted small', role: 'status' });
  const button = h('button', { type: 'button', class: 'small-button' }, 'Umstellen');
  button.addEventListener('click', async () => {
    try {
      const { mode } = await api.post('/api/mod/registration', { mode: select.value });
      announce(`Registrierung ist jetzt ${modeNames[mode] ?? mode}.`, 'info', result);
    } catch (err) {
      announce(err instanceof api.ApiError ? err.message : String(err), 'error', result);
    }
  });
  return h(
    'p',
    {},
    `Registrierung: ${modeNames[state.mode] ?? state.mode} (gesetzt von: ${setByNames[state.set_by] ?? state.set_by}). `,
    select,
    ' ',
    button,
    ' ',
    result,
  );
}

/**
 * The door's section of the moderation page; drawn again in place after a decision on the whole queue.
 * @returns {Promise<HTMLElement>}
 */
export async function doorSection() {
  /** @type {[Api.RegistrationState, Api.Application[]]} */
  const [state, applications] = await Promise.all([
    api.get('/api/mod/registration'),
    api.get('/api/mod/applications/0'),
  ]);
  /** @type {HTMLElement} */
  const section = h(
    'section',
    { class: 'door', 'aria-labelledby': 'door-heading' },
    h('h2', { id: 'door-heading' }, 'Registrierung'),
    modeSwitch(state),
    state.wave.length
      ? h(
          'details',
          {},
          h('summary', {}, `Konten aus dem letzten Ansturm (${state.wave.length})`),
          h(
            'ul',
            {},
            state.wave.map((a) =>
              h(
                'li',
                {},
                h('a', { href: `/u/${encodeURIComponent(a.username)}` }, a.username),
                ` · ${a.status}${a.banned ? ' · gesperrt' : ''}`,
              ),
            ),
          ),
        )
      : null,
    h('h3', {}, applications.length ? `Anträge (${applications.length})` : 'Anträge'),
    applications.length > 1 ? rejectShown(applications, async () => section.replaceWith(await doorSection())) : null,
    applications.length
      ? h('ul', { class: 'entry-list', 'aria-label': 'Anträge auf ein Konto' }, applications.map(applicationItem))
      : h('p', { class: 'empty' }, 'Keine Anträge offen.'),
  );
  return section;
}
