// Where to go after login (?weiter=): the one rule for every page that reads or writes it, the
// front end's (views/auth.js, views/register.js) and the login offers of the drawn pages
// (markup/login-offer.js). Resolved against the page's own origin, so only a path
// of the board counts. Why not a prefix check alone: "/\t/evil.example" starts with one slash, but
// the URL parser drops the tab and reads "//evil.example", another site. Why a check after the
// parse too: "/.//evil.example" resolves on the board, but its path "//evil.example" is another
// site again as soon as a link or a redirect uses it.

/** One "/" and then neither "/" nor "\", nor either of them escaped: a path, never "//host". */
const boardPath = /^\/(?![/\\]|%2f|%5c)/i;

/**
 * The path, query and fragment of `raw` when it resolves to `origin` and is a path of the board;
 * otherwise "/".
 * @param {string | null} raw
 * @param {string} origin
 */
export function sameOriginPath(raw, origin) {
  if (!raw) return '/';
  let url;
  try {
    url = new URL(raw, origin);
  } catch {
    return '/';
  }
  const path = url.pathname + url.search + url.hash;
  return url.origin === origin && boardPath.test(path) ? path : '/';
}

/** Any origin: withNext resolves a path of the board, which names none. */
const anyOrigin = 'http://board.invalid';

/**
 * The address of `page` (/login, /register) that comes back to `next` afterwards:
 * "/login?weiter=%2Fe%2F7%23e7"; just `page` when next is the feed or no path of the board.
 * @param {string} page
 * @param {string} next
 */
export function withNext(page, next) {
  const path = sameOriginPath(next, anyOrigin);
  return path === '/' ? page : `${page}?weiter=${encodeURIComponent(path)}`;
}

/**
 * The address to come back to after logging in: this page, scrolled to the entry `pid` (0: none).
 * The browser's; the server names the page itself.
 * @param {number} [pid]
 */
export function backHere(pid = 0) {
  return `${location.pathname}${location.search}${pid ? `#e${pid}` : ''}`;
}
