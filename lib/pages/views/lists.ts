import type { Db } from '../../db/db.ts';
import type { EntryJson } from '../../entries/reads.ts';
import { findTallies } from '../../entries/votes.ts';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { pageHref, shownPids, type Tallies } from './entry.ts';

/** The vote tallies of the entries a page shows, in one query. */
export function talliesOf(db: Db, entries: readonly EntryJson[]): Tallies {
  return new Map(findTallies(db, shownPids(entries), 0).map((t) => [t.pid, t]));
}

/** The canonical address and rel prev/next of page `page` of a paged list at `basePath` (absolute). */
export function pagedLinks(
  origin: string,
  basePath: string,
  page: number,
  hasNext: boolean,
): Pick<PageView, 'canonical' | 'prev' | 'next'> {
  return {
    canonical: origin + pageHref(basePath, page),
    prev: page > 0 ? origin + pageHref(basePath, page - 1) : undefined,
    next: hasNext ? origin + pageHref(basePath, page + 1) : undefined,
  };
}

/** The list's empty state, as the front end words it. */
export function emptyList(page: number, first: string): Html {
  return html`<p class="empty">${page ? 'Auf dieser Seite ist nichts mehr.' : first}</p>`;
}

/** The view's <div class="view"> (app.js draws each view into one). */
export function view(...children: Html[]): Html {
  return html`<div class="view">${children}</div>`;
}
