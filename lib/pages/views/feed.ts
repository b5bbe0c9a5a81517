import type { Db } from '../../db/db.ts';
import { readFeedPage } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage } from '../../product.ts';
import { html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { entryWithLatest, loginOffer, pager } from './entry.ts';
import { emptyList, pagedLinks, talliesOf, view } from './lists.ts';

/** "/" and "/?seite=N": the newest threads with their latest replies (web/static/views/feed.js). */
export function feedPage(db: Db, origin: string, page: number): PageView {
  const entries = readFeedPage(db, page);
  const tallies = talliesOf(db, entries);
  const title = page ? `Neueste Themen, Seite ${page + 1}` : 'Neueste Themen';
  const hasNext = entries.length >= feedPageSize && page < maxFeedPage;
  return {
    status: 200,
    title,
    ...pagedLinks(origin, '/', page, hasNext),
    main: view(
      html`<h1>${title}</h1>`,
      page === 0 ? loginOffer('Schreiben', '/') : html``,
      entries.length
        ? html`<ul class="entry-list" aria-label="Themen">${entries.map((entry) => html`<li>${entryWithLatest(entry, tallies)}</li>`)}</ul>`
        : emptyList(page, 'Noch keine Beiträge.'),
      pager('/', page, entries.length, feedPageSize, maxFeedPage) ?? html``,
    ),
  };
}
