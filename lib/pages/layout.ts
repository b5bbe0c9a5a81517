import { fill, html, type Html } from '../text/html.ts';
import { pageTitle } from '../../web/static/titles.js';

/**
 * A page as the server draws it (docs/API.md "Pages without JavaScript"): the front end's one
 * shell (web/index.html) with the page's head and its content in <main>, which the front end
 * takes over (takeOver in web/static/app.js); so every page has the shell's script, styles and CSP.
 */
export interface PageView {
  status: number;
  title: string;
  head?: Html;
  canonical?: string;
  prev?: string;
  next?: string;
  /** Not for search engines (search results: every query would be a page of its own). */
  noindex?: boolean;
  /** Drawn for every request, never kept in the response cache: it shows what ends by the clock (a ban). */
  fresh?: boolean;
  main: Html;
}

export const needsScript = html`<noscript><p>Diese Seite braucht JavaScript. Lesen geht auch ohne: <a href="/">die neuesten Themen</a>.</p></noscript>`;

export function layout(shell: Html, view: PageView): Html {
  const tags = [
    view.head ?? html`<title>${pageTitle(view.title)}</title>`,
    view.canonical && !view.head ? html`<link rel="canonical" href="${view.canonical}">` : null,
    view.prev ? html`<link rel="prev" href="${view.prev}">` : null,
    view.next ? html`<link rel="next" href="${view.next}">` : null,
    view.noindex ? html`<meta name="robots" content="noindex, follow">` : null,
  ];
  const head = html`${tags.map(
    (tag) =>
      tag &&
      html`${tag}
  `,
  )}`;
  return fill(shell, { '<!-- head -->': head, '<!-- main -->': view.main });
}
