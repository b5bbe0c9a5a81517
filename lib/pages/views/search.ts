import type { EntryJson } from '../../entries/reads.ts';
import { feedPageSize, maxFeedPage, maxSearchLength } from '../../product.ts';
import { termsPattern } from '../../search/query.ts';
import { html, type Html } from '../../text/html.ts';
import type { PageView } from '../layout.ts';
import { entryWithLatest, pager, type Tallies } from './entry.ts';
import { view } from './lists.ts';

/** The page's own search form: a plain GET form, so it works without scripts (web/static/views/search.js). */
function searchForm(q: string, user: string): Html {
  return html`<form class="search-form" role="search" action="/suche" method="get"><label for="search-page-q">Suchbegriff</label><input id="search-page-q" name="q" type="search" value="${q}" maxlength="${maxSearchLength}" required>${
    user ? html`<input type="hidden" name="user" value="${user}">` : null
  }<button type="submit">Suchen</button></form>`;
}

function emptyState(q: string, user: string): Html {
  return html`<div class="empty search-empty"><p>Nichts gefunden für „${q}“${user ? ` in den Beiträgen von ${user}` : ''}.</p><ul><li>Ein Wortteil genügt: „kraftwerk“ findet auch „Balkonkraftwerke“.</li><li>Jedes Wort muss vorkommen: weniger Wörter finden mehr.</li><li>Anführungszeichen suchen genau diese Wortfolge: „"gute Nacht"“.</li></ul>${
    user ? html`<p><a href="/suche?q=${encodeURIComponent(q)}">In allen Beiträgen suchen</a></p>` : null
  }</div>`;
}

export interface SearchAsked {
  q: string;
  user: string;
  page: number;
}

/** "/suche" without a query: the form and what the search does. */
export function searchFormPage(): PageView {
  return {
    status: 200,
    title: 'Suche',
    noindex: true,
    main: view(
      html`<h1>Suche</h1>`,
      searchForm('', ''),
      html`<p class="note">Gesucht wird in allen Beiträgen, auch in Teilen zusammengesetzter Wörter.</p>`,
    ),
  };
}

/** "/suche?q=…" refused (too long, too many words, an unknown author, too many searches, the search busy): the form and why. */
export function searchRefusedPage(asked: SearchAsked, status: number, message: string): PageView {
  return {
    status,
    title: `Suche: ${asked.q}`,
    noindex: true,
    main: view(html`<h1>Suche</h1>`, searchForm(asked.q, asked.user), html`<p class="note">${message}</p>`),
  };
}

/** "/suche?q=…[&user=…][&seite=N]": the matches with their latest replies, the terms marked, paged; never indexed. */
export function searchResultsPage(asked: SearchAsked, entries: EntryJson[], tallies: Tallies): PageView {
  const { q, user, page } = asked;
  const params = new URLSearchParams({ q, ...(user ? { user } : {}) });
  const title = page ? `Suche: ${q}, Seite ${page + 1}` : `Suche: ${q}`;
  const mark = termsPattern(q);
  return {
    status: 200,
    title,
    noindex: true,
    main: view(
      html`<h1>Suche: ${q}</h1>`,
      searchForm(q, user),
      user
        ? html`<p class="note">Nur Beiträge von ${user}. <a href="/suche?q=${encodeURIComponent(q)}">Alle durchsuchen</a></p>`
        : html``,
      entries.length
        ? html`<ul class="entry-list search-results" aria-label="Suchergebnisse">${entries.map((entry) => html`<li>${entryWithLatest(entry, tallies, { mark })}</li>`)}</ul>`
        : page
          ? html`<p class="empty">Auf dieser Seite ist nichts mehr.</p>`
          : emptyState(q, user),
      pager(`/suche?${params}`, page, entries.length, feedPageSize, maxFeedPage) ?? html``,
    ),
  };
}
