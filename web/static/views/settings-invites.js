// Settings: "Einladungen" (docs/API.md "Invites"): make an invite link (shown once, with a copy
// button), see one's invites (open, used by whom, expired, revoked) and revoke an open one. Why a
// new one cannot be made (trust level, the invites of the last 7 days, open invites, a closed door)
// shows before the click, as the server tells it.
import * as api from '../api.js';
import { h } from '../dom.js';
import { dateTime } from '../format.js';
import { maxOpenInvites } from '../limits.js';
import { trustUnlock } from '../rules.js';
import { announce } from '../status.js';
import { onClickBusy } from '../components/form.js';
import { section } from '../components/section.js';

/** What an invite does in each registration mode: one sentence each. @type {Record<Api.RegistrationInfo['mode'], string>} */
const modeNotes = {
  open: 'Die Registrierung ist offen, niemand braucht eine Einladung – aber wer eine hat, kommt sofort hinein, auch dann, wenn der Schutz vor einem Ansturm neue Konten auf die Freischaltung warten lässt.',
  approval:
    'Neue Konten warten zurzeit auf die Freischaltung durch die Moderation; wer mit deiner Einladung kommt, ist sofort dabei.',
  invite: 'Neue Konten gibt es hier nur mit Einladung.',
  closed:
    'Die Registrierung ist zurzeit geschlossen: Auch mit einer Einladung kann sich gerade niemand registrieren. Sobald sie wieder offen ist, kannst du hier einladen.',
};

/** @param {Api.Invite} invite */
function statusLine(invite) {
  switch (invite.status) {
    case 'open':
      return [h('strong', {}, 'Offen'), ` · gültig bis ${dateTime(invite.expires)}`];
    case 'used':
      return [
        h('strong', {}, 'Benutzt'),
        ' von ',
        invite.used_by
          ? h('a', { href: `/u/${encodeURIComponent(invite.used_by)}` }, invite.used_by)
          : 'einem Konto, das es nicht mehr gibt',
        ` am ${dateTime(invite.used_at)}`,
      ];
    case 'expired':
      return [h('strong', {}, 'Abgelaufen'), ` am ${dateTime(invite.expires)}`];
    default:
      return [h('strong', {}, 'Zurückgezogen')];
  }
}

/**
 * One invite of the list; an open one can be revoked.
 * @param {Api.Invite} invite
 * @param {() => Promise<void>} reload
 * @param {Element} near where the message about a revoke shows (the item is drawn again)
 */
function inviteItem(invite, reload, near) {
  const made = `Erstellt am ${dateTime(invite.created_at)}`;
  const item = h(
    'li',
    { class: 'session-item invite-item', 'data-status': invite.status },
    h('p', { class: 'invite-status' }, statusLine(invite)),
    h('p', { class: 'muted small' }, made),
  );
  if (invite.status === 'open') {
    const revoke = h(
      'button',
      {
        type: 'button',
        class: 'small-button danger-text',
        'aria-label': `Einladung vom ${dateTime(invite.created_at)} zurückziehen`,
      },
      'Zurückziehen',
    );
    onClickBusy(revoke, async () => {
      await api.post(`/api/user/invites/${invite.id}/revoke`);
      await reload();
      announce('Die Einladung ist zurückgezogen; ihr Link gilt nicht mehr.', 'info', near);
    });
    item.append(revoke);
  }
  return item;
}

/**
 * The new link, shown once: a read-only field, a copy button and when it expires.
 * @param {Api.NewInvite} invite
 */
function newInviteBox(invite) {
  const input = h('input', { id: 'invite-url', type: 'text', readonly: true, value: invite.url });
  const copy = h('button', { type: 'button' }, 'Link kopieren');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(invite.url);
      announce('Der Link ist kopiert.', 'info', copy);
    } catch {
      input.select();
      announce('Kopieren ging nicht; der Link ist markiert: kopiere ihn mit Strg+C.', 'error', copy);
    }
  });
  return h(
    'div',
    { class: 'note invite-new' },
    h('label', { for: 'invite-url' }, 'Dein neuer Einladungslink'),
    h('div', { class: 'invite-url-row' }, input, copy),
    h(
      'p',
      { class: 'small' },
      `Gültig bis ${dateTime(invite.expires)}, für ein Konto. `,
      h('strong', {}, 'Nur jetzt sichtbar: '),
      'Schick ihn der Person, die du einladen möchtest; wer den Link hat, kann ihn benutzen.',
    ),
  );
}

/** The invites of the account and the button that makes one (or why it cannot). */
export async function invitesSection() {
  /** @type {[Api.InviteList, Api.RegistrationInfo]} */
  const [first, door] = await Promise.all([api.get('/api/user/invites'), api.get('/api/auth/registration')]);
  const controls = h('div', { class: 'invite-controls' });
  const shown = h('div', { class: 'invite-shown' });
  const items = h('ul', { class: 'session-list invite-list', 'aria-label': 'Deine Einladungen' });
  const empty = h('p', { class: 'muted' }, 'Du hast noch niemanden eingeladen.');

  /** @param {Api.InviteList} data */
  const draw = (data) => {
    items.replaceChildren(...data.invites.map((invite) => inviteItem(invite, reload, items)));
    empty.hidden = data.invites.length > 0;
    const count = h('p', {}, `Offene Einladungen: ${data.open} von höchstens ${maxOpenInvites}.`);
    if (door.mode === 'closed') {
      controls.replaceChildren(count);
      return;
    }
    if (data.refusal) {
      // A new account has nothing to count yet: what unlocks inviting is the news.
      const trust = data.refusal.code === 'trust.required';
      const note = h(
        'p',
        { class: 'note invite-refusal' },
        data.refusal.message,
        trust ? ` Einladen kannst du ${trustUnlock}.` : '',
      );
      controls.replaceChildren(...(trust ? [note] : [count, note]));
      return;
    }
    const make = h('button', { type: 'button', class: 'primary' }, 'Einladungslink erstellen');
    onClickBusy(make, async () => {
      /** @type {Api.NewInvite} */
      const made = await api.post('/api/user/invites');
      shown.replaceChildren(newInviteBox(made));
      await reload();
      /** @type {HTMLInputElement | null} */ (document.getElementById('invite-url'))?.focus();
    });
    controls.replaceChildren(count, h('div', { class: 'form-actions' }, make));
  };
  const reload = async () => draw(await api.get('/api/user/invites'));
  draw(first);
  return section(
    'invites-heading',
    'Einladungen',
    h(
      'p',
      { class: 'muted' },
      'Mit einem Einladungslink kann sich jemand ein Konto anlegen. Die Moderation sieht, wer wen eingeladen hat, und kann mit einem Konto auch die Konten sperren, die es eingeladen hat.',
    ),
    h('p', { class: 'invite-mode' }, modeNotes[door.mode]),
    controls,
    shown,
    empty,
    items,
  );
}
