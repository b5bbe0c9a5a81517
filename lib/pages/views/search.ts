import type { EntryJson } from '../../entries/reads.ts';
import { termsPattern } from '../../search/query.ts';
import { drawnHtml } from '../../text/html.ts';
import { searchMarkup, searchTitle, type SearchAsked } from '../../../web/static/markup/search.js';
import type { Tallies } from '../../../web/static/markup/entry.js';
import type { PageView } from '../layout.ts';

export type { SearchAsked };

/**
 * "/suche" (web/static/markup/search.js), never indexed: without a query the form; refused (too
 * long, too many words, an unknown author, too many searches, the search busy) the form and why,
 * with the refusal's status; else the matches with their terms marked (termsPattern).
 */
export function searchPageView(
  asked: SearchAsked,
  found?: { status: number; message: string } | { entries: EntryJson[]; tallies: Tallies },
): PageView {
  const view = { title: searchTitle(asked), noindex: true };
  if (!found) return { ...view, status: 200, main: drawnHtml(searchMarkup(asked)) };
  if ('message' in found) return { ...view, status: found.status, main: drawnHtml(searchMarkup(asked, found)) };
  const mark = termsPattern(asked.q);
  return { ...view, status: 200, main: drawnHtml(searchMarkup(asked, { ...found, mark })) };
}
