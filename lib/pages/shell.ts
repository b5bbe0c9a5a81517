import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ctx } from '../http/context.ts';
import { findPublicAccount } from '../accounts/users.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { etagOf } from '../http/conditional.ts';
import type { CachedDocument, DrawnPage } from '../http/response-cache.ts';
import { cacheHeaders, everyAnswerHeaders } from '../http/respond.ts';
import type { CachedPage, Endpoint } from '../http/route.ts';
import { html as htmlAnswer, type Operation } from '../openapi/kit.ts';
import { messages } from '../messages.ts';
import { drawnHtml, fill, html, toText, trustedFile, type Html } from '../text/html.ts';
import { notFoundMarkup } from '../../web/static/markup/not-found.js';
import { layout, needsScript, type PageView } from './layout.ts';
import { moduleGraph, preloadTags } from './module-graph.ts';
import { frontEndVersion, versionedStatic } from './front-end-version.ts';
import { hasLiveReplies } from '../entries/reads.ts';

/** Pages may load only from the board itself: no CDN, no hotlinked image, no framing. */
const pageCsp = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** The one page shell, read once per process: it changes only with a deploy, which restarts the server. */
const shells = new Map<string, Promise<Html>>();

/**
 * The page's view beacon (lib/pages/impression.ts), only with BOARD_IMPRESSION_BEACON=1: without
 * scripts the browser loads the image, with them the front end sends POST /api/impression when the
 * page holds this element (web/static/app.js countPageView). Off, the page GET counts the view.
 */
const viewBeacon = html`<noscript id="view-beacon"><img class="visually-hidden" src="/api/impression" alt=""></noscript>`;

export function shellOf(config: Pick<Config, 'webDir' | 'contact' | 'impressionBeacon'>): Promise<Html> {
  const { webDir, contact, impressionBeacon } = config;
  const key = `${webDir}\u0000${contact}\u0000${impressionBeacon}`;
  let shell = shells.get(key);
  if (!shell) {
    shell = readFile(join(webDir, 'index.html'), 'utf8').then(async (file) => {
      const entry = /<script type="module" src="\/static\/([^"]+)"><\/script>/.exec(file)?.[1];
      if (!entry) throw new Error('web/index.html has no module script under /static/');
      const staticDir = join(webDir, 'static');
      const [modules, version] = await Promise.all([moduleGraph(staticDir, entry), frontEndVersion(staticDir)]);
      const prefix = versionedStatic(version);
      const parts = {
        '<!-- preload -->': preloadTags(modules, prefix),
        '<!-- beacon -->': impressionBeacon ? viewBeacon : html``,
      };
      // Every front-end file the shell names (its script and style sheets) under this version's path.
      return withContact(fill(trustedFile(file.replaceAll('"/static/', `"${prefix}`)), parts), contact);
    });
    shell.catch(() => shells.delete(key));
    shells.set(key, shell);
  }
  return shell;
}

/**
 * BOARD_CONTACT goes into the shell as `<body data-contact="…">` (the front end shows it on the
 * login page and in the footer). Why in the shell and not from an endpoint: the shell is the same
 * bytes for every visitor, so it stays cacheable, and no page load waits for one more request.
 */
export function withContact(shell: Html, contact: string): Html {
  return contact ? fill(shell, { '<body>': html`<body data-contact="${contact}">` }) : shell;
}

export function pageDocument(page: Html): CachedDocument {
  const body = Buffer.from(toText(page));
  return { body, etag: etagOf(body), updated: 0 };
}

export async function pageOf(ctx: Ctx, view: PageView): Promise<Buffer> {
  return pageDocument(layout(await shellOf(ctx.app.config), view)).body;
}

const scriptPage: Omit<PageView, 'status'> = { title: '', main: needsScript };

/**
 * What a 404 page says is missing: an address, or the entry or account it names, in the API's
 * words, which the front end shows for the same address, so it keeps the server's page.
 */
const missingWhy = { page: undefined, entry: messages['entry.not_found'], user: messages['user.not_found'] };
export type Missing = keyof typeof missingWhy;

/** The fixed pages (each 404, and the shell of a view that needs scripts) per shell: made once, sent as they are. */
const fixedPages = new WeakMap<Html, { notFound: Record<Missing, Buffer>; script: Buffer }>();

async function fixedPage(ctx: Ctx, status: number, missing: Missing): Promise<Buffer> {
  const shell = await shellOf(ctx.app.config);
  let pages = fixedPages.get(shell);
  if (!pages) {
    const notFound = (why: string | undefined) =>
      pageDocument(layout(shell, { title: 'Nicht gefunden', main: drawnHtml(notFoundMarkup(why)), status: 404 })).body;
    pages = {
      notFound: { page: notFound(missingWhy.page), entry: notFound(missingWhy.entry), user: notFound(missingWhy.user) },
      script: pageDocument(layout(shell, { ...scriptPage, status: 200 })).body,
    };
    fixedPages.set(shell, pages);
  }
  return status === 404 ? pages.notFound[missing] : pages.script;
}

function pageHeaders(length: number, shared: boolean, negotiated: boolean): Record<string, string> {
  const cache = cacheHeaders(shared, 'no-cache');
  const vary: Record<string, string> = negotiated ? { Vary: cache.Vary ? `${cache.Vary}, Accept` : 'Accept' } : {};
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(length),
    'Content-Security-Policy': pageCsp,
    ...cache,
    ...vary,
    'X-Frame-Options': 'DENY',
  };
}

/**
 * A drawn page (or one of the fixed pages: a 404 says what is `missing`), with the page headers
 * (CSP, no framing); `negotiated`: the page is also an ActivityPub object (Vary: Accept).
 */
export async function sendShell(
  ctx: Ctx,
  status: number,
  page?: Buffer,
  { missing = 'page', negotiated = false }: { missing?: Missing; negotiated?: boolean } = {},
): Promise<void> {
  const html = page ?? (await fixedPage(ctx, status, missing));
  ctx.res.writeHead(status, pageHeaders(html.length, ctx.sharedAnswer(status), negotiated));
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : html);
}

/**
 * Whether a view of this path counts an impression: the feed, an entry's page and a user's page
 * when they answer 200. Asked for the views the board did not draw (a proxy's notice, the beacon);
 * a page GET the board answers counts by its route row (`views`).
 */
export function isCountedPage(db: Db, path: string): boolean {
  if (path === '/') return true;
  const entry = /^\/e\/([^/]+)$/.exec(path);
  if (entry) {
    if (!pageParams.pid!.test(entry[1]!)) return false;
    const pid = Number(entry[1]);
    const row = db.one<{ deleted: number }>('SELECT deleted FROM entries WHERE pid = ?', pid);
    // As the page answers (lib/pages/views/thread.ts): a gone entry with nothing live below it is 410, and counts none.
    return row !== undefined && (!row.deleted || hasLiveReplies(db, pid));
  }
  const user = /^\/u\/([^/]+)$/.exec(path);
  if (!user) return false;
  try {
    return findPublicAccount(db, decodeURIComponent(user[1]!)) !== undefined;
  } catch {
    return false;
  }
}

const cachedHeads = new WeakMap<Buffer, CachedPage['head']>();

export function cachedPageAnswer({ body, status }: DrawnPage, negotiated = false): CachedPage {
  let head = cachedHeads.get(body);
  if (!head) {
    const headOf = (shared: boolean) =>
      Object.entries({ ...pageHeaders(body.length, shared, negotiated), ...everyAnswerHeaders }).flat();
    const own = headOf(false);
    head = { shared: status === 200 ? headOf(true) : own, own };
    cachedHeads.set(body, head);
  }
  return { status, body, head };
}

/**
 * What a page's path parameter must look like for the page to exist (else the 404 page): an entry
 * id is decimal digits, at most 15. The front end's page list (web/static/pages.js) matches with these.
 */
export const pageParams: Readonly<Record<string, RegExp>> = { pid: /^\d{1,15}$/ };

/**
 * One of the pages of the front end that need scripts: the shell with a <noscript> note, always
 * 200, no impression counted. The operator's contact rides in it so every visitor gets the same
 * bytes (README "Settings").
 */
function appPage(id: string, what: string): Endpoint {
  const page = (ctx: Ctx) => sendShell(ctx, 200);
  const doc: Operation = {
    id,
    summary: `The front end's page: ${what} (needs scripts)`,
    ok: htmlAnswer(200, 'the page; <body data-contact="…"> carries BOARD_CONTACT when it is set'),
  };
  return Object.assign(page, { doc, shell: true });
}

export const resetPage = appPage('resetPage', 'password reset (the token follows # in the address)');
export const loginPage = appPage('loginPage', 'login');
export const registerPage = appPage('registerPage', 'registration');
export const recoverPage = appPage('recoverPage', 'a new password with a recovery code');
export const settingsPage = appPage('settingsPage', 'the own account');
export const moderationPage = appPage('moderationPage', 'the moderation queue');
export const notificationsPage = appPage('notificationsPage', 'the own notifications');

export function notFoundPage(ctx: Ctx) {
  return sendShell(ctx, 404);
}
