import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ctx } from '../http/context.ts';
import { countImpression } from '../impressions.ts';
import { entryExists } from '../entries.ts';
import { findUserByName } from '../users.ts';

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

/** The front end's one HTML page, with the page headers (CSP, no framing). */
async function sendShell(ctx: Ctx, status: number): Promise<void> {
  const html = await shellOf(ctx.app.config.webDir, ctx.app.config.contact);
  ctx.res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': html.length,
    'Content-Security-Policy': pageCsp,
    'Cache-Control': 'no-cache',
    'X-Frame-Options': 'DENY',
  });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : html);
}

/** A page that counts an impression when a GET is answered 200 (HEAD and 404 pages count none). */
async function sendCountedPage(ctx: Ctx, status: number): Promise<void> {
  await sendShell(ctx, status);
  if (status === 200 && ctx.req.method === 'GET') countImpression(ctx.app, ctx.ip, ctx.req.headers['user-agent'] ?? '');
}

/** GET / : the feed page. */
export function home(ctx: Ctx) {
  return sendCountedPage(ctx, 200);
}

/** GET /e/{pid}: 404 page for an unknown entry. */
export function entryPage(ctx: Ctx) {
  const pid = /^\d{1,15}$/.test(ctx.params.pid!) ? Number(ctx.params.pid) : 0;
  return sendCountedPage(ctx, pid > 0 && entryExists(ctx.app.db, pid) ? 200 : 404);
}

/** GET /u/{username}: 404 page for an unknown user. */
export function userPage(ctx: Ctx) {
  return sendCountedPage(ctx, findUserByName(ctx.app.db, ctx.params.username!) ? 200 : 404);
}

/** The other pages of the front end (/login, /register, /settings, /stats, /reset, /mod, /modlog): no impression counted. */
export function appPage(ctx: Ctx) {
  return sendShell(ctx, 200);
}

/** Any other path outside /api: the front end's page with status 404. */
export function notFoundPage(ctx: Ctx) {
  return sendShell(ctx, 404);
}
