import type { Db } from '../../db/db.ts';
import { maxModlogPage, modlogPageSize } from '../../product.ts';
import { readPublicModlog, type PublicModlogRow } from '../../modlog/modlog.ts';
import { modlogReason, modlogSentence } from '../../../web/static/modlog-words.js';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { pager, timeOf, userHref } from './entry.ts';
import { germanDateTime } from '../../text/german.ts';
import { emptyList, pagedLinks, view } from './lists.ts';

/** A sentence of the log (web/static/modlog-words.js, as the front end's) with its links. */
function sentence(row: PublicModlogRow): Html {
  return html`${modlogSentence(row, germanDateTime).map((part) => {
    if (typeof part === 'string') return part;
    if ('entry' in part) return html`<a href="/e/${part.entry}">Beitrag #${part.entry}</a>`;
    return html`<a href="${userHref(part.user)}">${part.user}</a>`;
  })}`;
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
        ? html`<ol class="modlog" aria-label="Entscheidungen">${rows.map((row) => {
            const reason = modlogReason(row);
            return html`<li class="modlog-row"><p class="modlog-what">${sentence(row)}</p>${
              reason ? html`<p class="modlog-reason">Grund: „${reason}“</p>` : null
            }<p class="muted small">${timeOf(row.created_at)}</p></li>`;
          })}</ol>`
        : emptyList(page, 'Noch keine Entscheidungen.'),
      pager('/modlog', page, rows.length, modlogPageSize, maxModlogPage) ?? html``,
    ),
  };
}
