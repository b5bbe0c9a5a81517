// Where to go after login (?weiter=): resolved against the page's own origin, so only a path of
// the board counts. Why not a prefix check: "/\t/evil.example" starts with one slash, but the URL
// parser drops the tab and reads "//evil.example", another site.

/**
 * The path, query and fragment of `raw` when it resolves to `origin`; otherwise "/".
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
  return url.origin === origin ? url.pathname + url.search + url.hash : '/';
}
