import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ctx } from '../http/context.ts';
import { cacheHeaders } from '../http/respond.ts';
import { entryExists } from '../entries/entries.ts';
import { findUserByName, usernameKey } from '../accounts/users.ts';
import type { Db } from '../db/db.ts';
import { entryShare, userShare } from './share.ts';
import type { Endpoint } from '../http/route.ts';
import { html, type Operation } from '../openapi/kit.ts';

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
const shells = new Map<string, Promise<Buffer>>();

function shellOf(webDir: string, contact: string): Promise<Buffer> {
  const key = `${webDir}\u0000${contact}`;
  let shell = shells.get(key);
  if (!shell) {
    shell = readFile(join(webDir, 'index.html'), 'utf8').then((html) => Buffer.from(withContact(html, contact)));
    shell.catch(() => shells.delete(key)); // a failed read is retried by the next request
    shells.set(key, shell);
  }
  return shell;
}

const attributeEscapes: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

/**
 * BOARD_CONTACT goes into the shell as `<body data-contact="…">` (the front end shows it on the
 * login page and in the footer). Why in the shell and not from an endpoint: the shell is the same
 * bytes for every visitor, so it stays cacheable, and no page load waits for one more request.
 */
export function withContact(html: string, contact: string): string {
  if (!contact) return html;
  const escaped = contact.replace(/[&"<>]/g, (ch) => attributeEscapes[ch]!);
  return html.replace('<body>', `<body data-contact="${escaped}">`);
}

/** The front end's one HTML page (or that page with share tags), with the page headers (CSP, no framing). */
async function sendShell(ctx: Ctx, status: number, page?: Buffer): Promise<void> {
  const html = page ?? (await shellOf(ctx.app.config.webDir, ctx.app.config.contact));
  ctx.res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': html.length,
    'Content-Security-Policy': pageCsp,
    ...cacheHeaders(ctx.sharedAnswer(status), 'no-cache'),
    'X-Frame-Options': 'DENY',
  });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : html);
}

/**
 * Whether a view of this page path counts an impression: the feed, an entry's page and a user's
 * page, when they answer 200 (a 404 page, the other pages, files and feeds count none). Why not the
 * page GET itself: a shared cache in front answers most of them; the page's beacon asks here
 * (lib/api/impression.ts).
 */
export function isCountedPage(db: Db, path: string): boolean {
  if (path === '/') return true;
  const entry = /^\/e\/([^/]+)$/.exec(path);
  if (entry) return pageParams.pid!.test(entry[1]!) && entryExists(db, Number(entry[1]));
  const user = /^\/u\/([^/]+)$/.exec(path);
  if (!user) return false;
  try {
    return findUserByName(db, decodeURIComponent(user[1]!)) !== undefined;
  } catch {
    return false; // a malformed escape: no such page
  }
}

/** GET / : the feed page. */
export function home(ctx: Ctx) {
  return sendShell(ctx, 200);
}
home.doc = {
  id: 'homePage',
  summary: 'The feed page (its beacon counts an impression: POST /api/impression)',
  ok: html(200, 'the page'),
} satisfies Operation;
home.shell = true;

/**
 * What a page's path parameter must look like for the page to exist (else the 404 page): an entry
 * id is decimal digits, at most 15. The front end's page list (web/static/pages.js) matches with these.
 */
export const pageParams: Readonly<Record<string, RegExp>> = { pid: /^\d{1,15}$/ };

/**
 * GET /e/{pid}: the page with the entry's share tags (lib/pages/share.ts), kept in the response
 * cache like the feed; a deleted entry's thread is the plain shell (it reveals nothing), an
 * unknown entry the 404 page.
 */
export async function entryPage(ctx: Ctx<'pid'>) {
  const pid = pageParams.pid!.test(ctx.params.pid) ? Number(ctx.params.pid) : 0;
  if (pid === 0) return sendShell(ctx, 404);
  const { db, config } = ctx.app;
  const shell = await shellOf(config.webDir, config.contact);
  const shared = db.responses.document(`share /e/${pid}`, () => entryShare(db, config.origin, shell, pid));
  return sendShell(ctx, shared || entryExists(db, pid) ? 200 : 404, shared?.body);
}
entryPage.doc = {
  id: 'entryPage',
  summary:
    "An entry's page with its share tags: title, description, Open Graph, Twitter card (its beacon counts an impression)",
  ok: html(200, 'the page, when the entry exists (deleted ones too)'),
  more: [html(404, 'the page with status 404: no such entry')],
} satisfies Operation;
entryPage.shell = true;

/** GET /u/{username}: the page with the profile's share tags; 404 page for an unknown user. */
export async function userPage(ctx: Ctx<'username'>) {
  const { db, config } = ctx.app;
  const shell = await shellOf(config.webDir, config.contact);
  const name = ctx.params.username;
  const shared = db.responses.document(`share /u/${usernameKey(name)}`, () =>
    userShare(db, config.origin, shell, name),
  );
  return sendShell(ctx, shared ? 200 : 404, shared?.body);
}
userPage.doc = {
  id: 'userPage',
  summary: "A user's profile page with its share tags (its beacon counts an impression)",
  ok: html(200, 'the page, when the user exists'),
  more: [html(404, 'the page with status 404: no such user')],
} satisfies Operation;
userPage.shell = true;

/**
 * One of the other pages of the front end: the page shell, always 200, its view counts no impression. The
 * operator's contact rides in it so every visitor gets the same bytes (README "Settings").
 */
function appPage(id: string, what: string): Endpoint {
  const page = (ctx: Ctx) => sendShell(ctx, 200);
  const doc: Operation = {
    id,
    summary: `The front end's page: ${what}`,
    ok: html(200, 'the page; <body data-contact="…"> carries BOARD_CONTACT when it is set'),
  };
  return Object.assign(page, { doc, shell: true });
}

export const resetPage = appPage('resetPage', 'password reset (the token follows # in the address)');
export const loginPage = appPage('loginPage', 'login');
export const registerPage = appPage('registerPage', 'registration');
export const settingsPage = appPage('settingsPage', 'the own account');
export const statsPage = appPage('statsPage', 'statistics');
export const moderationPage = appPage('moderationPage', 'the moderation queue');
export const modlogPage = appPage('modlogPage', 'the public moderation log');
export const searchPage = appPage('searchPage', 'search results (?q=, no impression counted)');
export const notificationsPage = appPage('notificationsPage', 'the own notifications');

/** Any other path outside /api: the front end's page with status 404. */
export function notFoundPage(ctx: Ctx) {
  return sendShell(ctx, 404);
}
