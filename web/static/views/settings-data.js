// Settings: the accounts the reader muted, and the data export (docs/API.md "Account self-service").
import * as api from '../api.js';
import { h } from '../dom.js';
import { setMuted } from '../session.js';
import { announce } from '../status.js';
import { onClickBusy } from '../components/form.js';
import { section } from '../components/section.js';

/** @param {Api.MutedAccount} account */
function mutedItem(account) {
  const unmute = h('button', { type: 'button' }, `Stummschaltung von ${account.username} aufheben`);
  const item = h(
    'li',
    { class: 'mute-item' },
    h('a', { href: `/u/${encodeURIComponent(account.username)}` }, account.username),
    unmute,
  );
  onClickBusy(unmute, async () => {
    await setMuted(account, false);
    const list = item.parentElement;
    item.remove();
    announce(`Die Stummschaltung von ${account.username} ist aufgehoben.`, 'info', list);
  });
  return item;
}

/** The muted accounts, each with a link to its profile and the way back. */
export async function mutesSection() {
  /** @type {Api.MutedAccount[]} */
  const mutes = await api.get('/api/user/mutes');
  return section(
    'mutes-heading',
    'Stummgeschaltete Konten',
    h(
      'p',
      { class: 'muted' },
      'Beiträge dieser Konten sind für dich eingeklappt. Niemand erfährt, wen du stummgeschaltet hast. Stummschalten kannst du über „Mehr“ an einem Beitrag oder auf einem Profil.',
    ),
    mutes.length
      ? h('ul', { class: 'mute-list', 'aria-label': 'Stummgeschaltete Konten' }, mutes.map(mutedItem))
      : h('p', { class: 'empty' }, 'Du hast niemanden stummgeschaltet.'),
  );
}

/** A plain download link: the server streams the zip, the browser saves it (no copy in the page's memory). */
export function exportSection() {
  return section(
    'export-heading',
    'Deine Daten',
    h(
      'p',
      {},
      'Ein ZIP-Archiv mit allem, was dein Konto ausmacht: dein Profil, alle deine Beiträge (auch gelöschte), deine Stimmen, Meldungen und Anmeldungen, dazu deine Bilder und dein Avatar.',
    ),
    h('p', {}, h('a', { class: 'button-link', href: '/api/user/export', download: '' }, 'Daten herunterladen (ZIP)')),
    h('p', { class: 'muted small' }, 'Höchstens dreimal pro Stunde.'),
  );
}
