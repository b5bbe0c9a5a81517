// The instances on "/mod" (docs/API.md "Federation"): the federation mode, each other server with
// a decision, followers or deliveries, and a form that allows, blocks or unblocks one. Absent when
// BOARD_FEDERATION is off (the API answers 404 then).
import * as api from '../api.js';
import { h } from '../dom.js';
import { dateTime, number } from '../format.js';
import { maxModReasonLength } from '../limits.js';
import { me } from '../session.js';
import { announce } from '../status.js';

/** @type {Record<string, string>} */
const modeNames = {
  allowlist: 'nur zugelassene Instanzen',
  open: 'alle Instanzen außer gesperrten',
};

/** @type {Record<string, string>} */
const stateNames = { allowed: 'zugelassen', blocked: 'gesperrt', '': 'keine Entscheidung' };

/** @param {Api.Instance} row */
function instanceItem(row) {
  return h(
    'tr',
    { 'data-instance': row.host },
    h('th', { scope: 'row' }, row.host),
    h('td', {}, stateNames[row.state] ?? row.state),
    h('td', {}, number(row.followers)),
    h('td', {}, number(row.queued)),
    h('td', {}, number(row.delivered)),
    h('td', {}, number(row.failed)),
    h('td', {}, row.last_delivered ? dateTime(row.last_delivered) : '–'),
  );
}

/** @param {() => Promise<void>} redraw */
function decisionForm(redraw) {
  const instance = h('input', { type: 'text', name: 'instance', required: true, placeholder: 'social.example' });
  const action = h(
    'select',
    { name: 'action' },
    h('option', { value: 'allow' }, 'zulassen'),
    h('option', { value: 'block' }, 'sperren'),
    h('option', { value: 'unblock' }, 'Sperre aufheben'),
  );
  const reason = h('input', { type: 'text', name: 'reason', maxlength: maxModReasonLength });
  const result = h('p', { class: 'local-status', role: 'status' });
  const form = h(
    'form',
    { class: 'instance-form' },
    h('label', {}, 'Instanz ', instance),
    ' ',
    h('label', {}, 'Entscheidung ', action),
    ' ',
    h('label', {}, 'Notiz (freiwillig) ', reason),
    ' ',
    h('button', { type: 'submit', class: 'small-button' }, 'Übernehmen'),
    result,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      /** @type {Api.Instance} */
      const row = await api.post('/api/mod/federation/instances', {
        instance: instance.value,
        action: action.value,
        reason: reason.value,
      });
      await redraw();
      announce(`${row.host}: ${stateNames[row.state] ?? row.state}.`);
    } catch (err) {
      announce(err instanceof api.ApiError ? err.message : String(err), 'error', result);
    }
  });
  return form;
}

/**
 * The section, or null when federation is off; drawn again in place after a decision.
 * @returns {Promise<HTMLElement | null>}
 */
export async function instancesSection() {
  // whoami names a `fediverse` handle only while the board federates: no request that answers 404.
  if (!me()?.fediverse) return null;
  /** @type {{ mode: string, instances: Api.Instance[] }} */
  const state = await api.get('/api/mod/federation/instances');
  /** @type {HTMLElement} */
  const section = h(
    'section',
    { class: 'instances', 'aria-labelledby': 'instances-heading' },
    h('h2', { id: 'instances-heading' }, 'Instanzen'),
    h('p', {}, `Föderation: ${modeNames[state.mode] ?? state.mode}.`),
    decisionForm(async () => {
      const next = await instancesSection();
      if (next) section.replaceWith(next);
    }),
    state.instances.length
      ? h(
          'table',
          { class: 'instances-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Instanz', 'Entscheidung', 'Folgende', 'Wartend', 'Zugestellt', 'Aufgegeben', 'Zuletzt zugestellt'].map(
                (name) => h('th', { scope: 'col' }, name),
              ),
            ),
          ),
          h('tbody', {}, state.instances.map(instanceItem)),
        )
      : h('p', { class: 'empty' }, 'Noch keine Instanz folgt, und keine ist entschieden.'),
  );
  return section;
}
