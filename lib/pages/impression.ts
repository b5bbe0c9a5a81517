import type { Ctx } from '../http/context.ts';
import { invalidField } from '../errors.ts';
import { textField } from '../http/fields.ts';
import { cacheHeaders } from '../http/respond.ts';
import { fieldMessages } from '../messages.ts';
import { json, object, requiredField, type Operation } from '../openapi/kit.ts';
import { isCountedPage } from '../pages/shell.ts';
import { countView, maxPagePath } from '../http/page-views.ts';

/**
 * The impression beacon (docs/API.md "Statistics"), with BOARD_IMPRESSION_BEACON=1 the one way
 * views count (lib/http/page-views.ts). Why a request of its own: a cache in front the board cannot
 * see (a CDN) answers most page GETs and tells nobody; this request never is cached (no-store,
 * POST), so every page view still counts. The page asks for its own path; the board decides
 * whether that page counts (the rule of the pages, isCountedPage) and counts as a page GET does: no
 * address stored, the visitor as a daily HMAC. With the setting off the pages carry no beacon and
 * it counts nothing.
 */

const counted = json('whether an impression was counted', object({ counted: { type: 'boolean' } }));

export async function impression(ctx: Ctx) {
  const page = textField(await ctx.form(), 'page');
  if (!page) throw invalidField('page', fieldMessages.required);
  return { counted: countPageView(ctx, page) };
}
impression.doc = {
  id: 'impression',
  summary: "Count a page view: the page's beacon, sent once per page load (never cached)",
  description:
    'With BOARD_IMPRESSION_BEACON=1 the pages carry it, and the front end sends it once per page load (navigating inside the front end counts nothing). It counts as a page GET does (docs/API.md "What counts"): one impression (and the visitor, once a day) when `page` is the feed, an existing entry or an existing user page; any other page counts nothing, and so do bot-like User-Agents. The address is used in memory only, the visitor as the day\'s keyed hash. With the setting off (the default) the page GETs count, and this counts nothing (`counted: false`), so a page from before the switch, still open in a browser, counts nothing twice.',
  fields: { page: requiredField("the page's path, as location.pathname has it (e.g. /e/42)") },
  ok: counted,
  errors: { 400: ['input.invalid'] },
  when: { 'input.invalid': '`field` `page`: missing' },
} satisfies Operation;

/** A transparent 1×1 GIF: an image element gets an image, so the browser asks once and shows nothing. */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * GET /api/impression: the same for a browser without JavaScript, from the page's
 * `<noscript><img>`; the page is the Referer (same origin only: Referrer-Policy same-origin sends
 * it), so another site's image counts nothing. Answers the pixel, never cached.
 */
export function impressionImage(ctx: Ctx) {
  const page = ownPagePath(ctx);
  if (page !== undefined) countPageView(ctx, page);
  ctx.res.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': pixel.length, ...cacheHeaders(false) });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : pixel);
}
impressionImage.doc = {
  id: 'impressionImage',
  summary: 'Count a page view without JavaScript: the page is the Referer (never cached)',
  description:
    'With BOARD_IMPRESSION_BEACON=1 the page holds `<noscript id="view-beacon"><img src="/api/impression"></noscript>`, and the page is the Referer (sent within the origin: `Referrer-Policy: same-origin`). Counts as POST /api/impression does for the Referer\'s path; a missing, foreign or unparsable Referer counts nothing, and so does every request with the setting off. Always the same transparent 1×1 GIF.',
  ok: { status: 200, description: 'a transparent 1×1 GIF', mediaType: 'image/gif' },
} satisfies Operation;

function countPageView(ctx: Ctx, page: string): boolean {
  if (page.length > maxPagePath || !isCountedPage(ctx.app.db, page)) return false;
  return countView(ctx.app, 'beacon', ctx.ip, ctx.req.headers['user-agent']);
}

function ownPagePath(ctx: Ctx): string | undefined {
  const referer = ctx.req.headers.referer;
  if (!referer) return undefined;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  const own = url.origin === ctx.app.config.origin || url.host === ctx.req.headers.host?.toLowerCase();
  return own ? url.pathname : undefined;
}
