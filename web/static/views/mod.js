// "/mod": the report queue for moderators. Each reported entry in context (author, image, thread
// link) with the reasons and three actions: remove, dismiss, ban the author. Results show at once.
import * as api from '../api.js';
import { add, h, replace, uid } from '../dom.js';
import { queuePageSize } from '../limits.js';
import { isModerator, me } from '../session.js';
import { announce } from '../status.js';
import { entryCard, goneEntry, timeAgo } from '../components/entry.js';
import { panelToggle } from '../components/entry-actions.js';
import { banForm, banText, dismissForm, removeForm, treeBanText } from '../components/mod-actions.js';
import { refreshModCount } from '../components/mod-link.js';
import { pageFromQuery, pager } from '../markup/pager.js';
import { doorSection } from './mod-door.js';
import { instancesSection } from './mod-instances.js';

/** @import { ViewContext } from '../router.js' */

/**
 * @param {Api.QueueItem['reports']} reports
 * @param {number} openReports
 */
function reasonList(reports, openReports) {
  return [
    h(
      'ul',
      { class: 'report-reasons' },
      reports.map((r) =>
        h(
          'li',
          {},
          timeAgo(r.created_at),
          r.instance ? ` von ${r.instance}` : '',
          ': ',
          r.reason ? `„${r.reason}“` : h('span', { class: 'muted' }, 'ohne Grund'),
        ),
      ),
    ),
    openReports > reports.length
      ? h('p', { class: 'muted small' }, `… und ${openReports - reports.length} weitere`)
      : null,
  ];
}

/** @param {Api.Entry} entry */
function contextLinks(entry) {
  return h(
    'p',
    { class: 'queue-context' },
    h('a', { href: `/e/${entry.pid}` }, 'Im Zusammenhang ansehen'),
    entry.reply_to ? [' · ', h('a', { href: `/e/${entry.reply_to}` }, 'Der Beitrag, auf den er antwortet')] : null,
  );
}

/**
 * One reported entry with its reasons and actions.
 * @param {Api.QueueItem} item
 */
function queueItem({ entry, open_reports: openReports, reports }) {
  const headingId = uid('queue');
  const panel = h('div', { class: 'entry-panel', id: uid('panel') });
  const result = h('p', { class: 'queue-result local-status', tabindex: '-1' });
  const actions = h('div', { class: 'entry-actions queue-actions' });
  let card = entryCard(entry, { replyContext: true, noActions: true });

  /** @param {string} text */
  const done = (text) => {
    panel.replaceChildren();
    announce(text, 'info', result);
    result.focus();
    void refreshModCount();
  };
  /** @param {string} reason */
  const showTombstone = (reason) => {
    const tombstone = entryCard(goneEntry(entry, reason), { replyContext: true, noActions: true });
    card.replaceWith(tombstone);
    card = tombstone;
  };
  const removeButton = () =>
    panelToggle(
      'Entfernen',
      panel,
      (close) =>
        removeForm(entry.pid, {
          onCancel: close,
          onDone(reason) {
            showTombstone(reason);
            actions.replaceChildren();
            done('Entfernt. Die Meldungen sind geschlossen.');
          },
        }),
      'danger-text',
    );
  const dismissButton = () =>
    panelToggle('Verwerfen', panel, (close) =>
      dismissForm(entry.pid, {
        onCancel: close,
        onDone() {
          actions.replaceChildren();
          done('Meldungen verworfen. Der Beitrag bleibt.');
        },
      }),
    );
  const banButton = () =>
    panelToggle(
      `${entry.username} sperren`,
      panel,
      (close) =>
        banForm(entry.username, {
          onCancel: close,
          onDone(ban, purged, reason) {
            if (purged && !entry.deleted) {
              showTombstone(reason);
              actions.replaceChildren();
            } else {
              replace(actions, entry.deleted ? null : removeButton(), dismissButton()); // the reports stay open
            }
            done(
              `${entry.username} ist ${banText(ban.banned_until)}.${purged ? ' Alle Beiträge sind entfernt.' : ''}${treeBanText(ban)}`,
            );
          },
        }),
      'danger-text',
    );

  replace(actions, entry.deleted ? null : removeButton(), dismissButton(), entry.username ? banButton() : null);
  return h(
    'article',
    { class: 'card queue-item', 'aria-labelledby': headingId, 'data-pid': entry.pid },
    h(
      'h2',
      { id: headingId },
      `Beitrag #${entry.pid}: `,
      openReports === 1 ? '1 offene Meldung' : `${openReports} offene Meldungen`,
    ),
    card,
    contextLinks(entry),
    h('h3', {}, 'Gründe der Meldungen'),
    reasonList(reports, openReports),
    actions,
    panel,
    result,
  );
}

/**
 * @param {HTMLElement} root
 * @param {ViewContext} ctx
 */
export async function modView(root, { query }) {
  add(root, h('h1', {}, 'Moderation'));
  const user = me();
  if (!isModerator(user)) {
    add(
      root,
      h('p', { class: 'note' }, 'Diese Seite ist nur für die Moderation.'),
      user ? null : h('p', {}, 'Wer moderiert, ', h('a', { href: '/login?weiter=/mod' }, 'meldet sich zuerst an'), '.'),
    );
    return 'Nur für die Moderation';
  }
  const page = pageFromQuery(query);
  /** @type {Api.QueueItem[]} */
  const queue = await api.get(`/api/mod/reports/${page}`);
  add(
    root,
    page ? null : await doorSection(),
    page ? null : await instancesSection(),
    h(
      'p',
      { class: 'muted' },
      'Gemeldete Beiträge, die mit den meisten offenen Meldungen zuerst. Wer gemeldet hat, bleibt bei der Administration.',
    ),
    queue.length
      ? h(
          'ul',
          { class: 'entry-list queue', 'aria-label': 'Gemeldete Beiträge' },
          queue.map((item) => h('li', {}, queueItem(item))),
        )
      : h('p', { class: 'empty' }, page ? 'Auf dieser Seite ist nichts mehr.' : 'Keine offenen Meldungen.'),
    pager('/mod', page, queue.length, queuePageSize),
    h('p', {}, h('a', { href: '/modlog' }, 'Zum Moderationsprotokoll')),
  );
  return page ? `Moderation, Seite ${page + 1}` : 'Moderation';
}
