import type { Db } from '../../db/db.ts';
import { maxModlogPage, modlogPageSize } from '../../limits/product.ts';
import { readPublicModlog, type PublicModlogRow } from '../../moderation/modlog.ts';
import { html, type Html } from '../html.ts';
import type { PageView } from '../layout.ts';
import { pager, timeOf, userHref } from './entry.ts';
import { germanDateTime } from './format.ts';
import { emptyList, pagedLinks, view } from './lists.ts';

function userLink(username: string): Html | string {
  return username ? html`<a href="${userHref(username)}">${username}</a>` : 'einem gelöschten Konto';
}

function entryLink(row: PublicModlogRow): Html {
  return html`<a href="/e/${row.pid}">Beitrag #${row.pid}</a>${row.username ? html` von ${userLink(row.username)}` : null}`;
}

/** As banText in web/static/components/mod-actions.js. */
function banText(until: number): string {
  return until === -1 ? 'dauerhaft gesperrt' : `gesperrt bis ${germanDateTime(until)}`;
}

/** What happened, as a German sentence with links (as in web/static/views/modlog.js). */
function sentence(row: PublicModlogRow): Html {
  switch (row.action) {
    case 'remove':
      return html`${entryLink(row)} entfernt`;
    case 'restore':
      return html`${entryLink(row)} wiederhergestellt`;
    case 'dismiss':
      return html`Meldungen zu ${entryLink(row)} verworfen`;
    case 'ban':
      return html`${row.username ? userLink(row.username) : 'Ein Konto'} ${banText(row.until)}`;
    case 'unban':
      return html`Sperre von ${userLink(row.username)} aufgehoben`;
    case 'avatar_remove':
      return html`Avatar von ${userLink(row.username)} entfernt`;
    default:
      return html`${row.action}`;
  }
}

/** "/modlog": the public moderation log, newest first, 50 rows a page; it names no moderator. */
export function modlogPage(db: Db, origin: string, page: number): PageView {
  const rows = readPublicModlog(db, page);
  const title = page ? `Moderationsprotokoll, Seite ${page + 1}` : 'Moderationsprotokoll';
  const hasNext = rows.length >= modlogPageSize && page < maxModlogPage;
  return {
    status: 200,
    title,
    ...pagedLinks(origin, '/modlog', page, hasNext),
    main: view(
      html`<h1>${title}</h1><p class="muted">Jede Entscheidung der Moderation mit ihrem Grund, die neueste zuerst. Hier spricht „die Moderation“: einzelne Namen stehen nicht dabei.</p>`,
      rows.length
        ? html`<ol class="modlog" aria-label="Entscheidungen">${rows.map(
            (row) =>
              html`<li class="modlog-row"><p class="modlog-what">${sentence(row)}</p>${
                row.reason ? html`<p class="modlog-reason">Grund: „${row.reason}“</p>` : null
              }<p class="muted small">${timeOf(row.created_at)}</p></li>`,
          )}</ol>`
        : emptyList(page, 'Noch keine Entscheidungen.'),
      pager('/modlog', page, rows.length, modlogPageSize, maxModlogPage) ?? html``,
    ),
  };
}
