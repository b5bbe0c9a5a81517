// Client-side navigation: links inside the board change the view without a page load.
import { clearStatus } from './status.js';

/**
 * What a view gets: the match of its address pattern (params[1] is the first group) and the query.
 * @typedef {{ params: string[], query: URLSearchParams }} ViewContext
 */

/**
 * A view draws one page into `root` and returns its title (pageTitle in titles.js adds the board's
 * name); it throws an ApiError when its data cannot be loaded.
 * @typedef {(root: HTMLElement, ctx: ViewContext) => string | Promise<string>} View
 */

/**
 * A view the server draws as well (markup/): load() fetches its data through the API and gives its
 * title, its markup (the server's own functions, drawn here) and enhance(), which adds what only
 * the browser does to the drawn view, whether the server drew it or the browser.
 * @typedef {{ load: (ctx: ViewContext) => Promise<Drawn> }} DrawnView
 * @typedef {{ title: string, markup: () => HTMLElement, enhance: (view: HTMLElement) => void }} Drawn
 */

/**
 * How app.js draws the current address: moveFocus to the new heading, scroll to the top.
 * @typedef {(options: { moveFocus: boolean, scroll: boolean }) => void} Render
 */

/** @type {Render} */
let renderView = () => {};
let drawn = '';

/** @param {{ moveFocus: boolean, scroll: boolean }} options */
function draw(options) {
  drawn = location.pathname + location.search;
  renderView(options);
}

/**
 * Goes to a path of the board (pushState, or replaceState with {replace: true}) and draws it. The
 * last page's message goes; a message about the way here (a welcome) is announced after this call.
 * @param {string} path
 * @param {{ replace?: boolean }} [options]
 */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  clearStatus();
  draw({ moveFocus: true, scroll: !replace });
}

/** Redraws the current address (after a change that alters the page, e.g. a new reply). */
export function refresh() {
  draw({ moveFocus: false, scroll: false });
}

/**
 * @param {HTMLAnchorElement | null} a
 * @param {MouseEvent} event
 * @returns {a is HTMLAnchorElement}
 */
function isBoardLink(a, event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return false;
  if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return false;
  return !a.pathname.startsWith('/static/') && !a.pathname.startsWith('/api/');
}

/**
 * Intercepts clicks on the board's own links and the back/forward buttons; app.js draws the first view.
 * @param {Render} render
 */
export function startRouter(render) {
  renderView = render;
  drawn = location.pathname + location.search;
  document.addEventListener('click', (event) => {
    /** @type {HTMLAnchorElement | null} */
    const a = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!isBoardLink(a, event)) return;
    if (a.pathname === location.pathname && a.search === location.search && a.hash) return; // in-page anchor
    event.preventDefault();
    navigate(a.pathname + a.search + a.hash);
  });
  // A jump to an anchor (the skip link) also fires popstate: only a new path or query redraws.
  window.addEventListener('popstate', () => {
    if (location.pathname + location.search === drawn) return;
    clearStatus();
    draw({ moveFocus: true, scroll: false });
  });
}
