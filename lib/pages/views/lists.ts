import type { Db } from '../../db/db.ts';
import type { EntryJson } from '../../entries/reads.ts';
import { findTallies } from '../../entries/votes.ts';
import type { PageView } from '../layout.ts';
import { shownPids, type Tallies } from '../../../web/static/markup/entry.js';
import { pageHref } from '../../../web/static/markup/pager.js';

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
