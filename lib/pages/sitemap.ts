import { atomTime, element, parent } from '../atom/xml.ts';
import type { Db } from '../db/db.ts';
import { etagOf, sendDocument } from '../http/conditional.ts';
import type { Ctx } from '../http/context.ts';
import type { CachedDocument } from '../http/response-cache.ts';
import { html as htmlAnswer, type Answer, type Operation } from '../openapi/kit.ts';
import { notFoundPage } from './shell.ts';
import { responsesOf } from '../http/response-cache.ts';

/**
 * robots.txt and the sitemap (docs/API.md "Robots and sitemap", https://www.sitemaps.org/protocol.html):
 * the live threads by last activity, newest first, with their last activity as lastmod. A deleted
 * or removed thread leaves it with the write that ends it (the response cache's feed version). At
 * most 50,000 addresses a file, as the protocol says: past that, /sitemap.xml is an index of
 * /sitemap/{n}.xml files.
 */

export const sitemapUrls = 50_000;
const xmlType = 'application/xml; charset=utf-8';
const sitemapNs = 'http://www.sitemaps.org/schemas/sitemap/0.9';

function liveThreadCount(db: Db): number {
  return db.one<{ n: number }>('SELECT count(*) AS n FROM entries WHERE reply_to = 0 AND deleted = 0')!.n;
}

function threadsOfFile(db: Db, file: number, perFile: number): { pid: number; last_activity: number }[] {
  return db.all<{ pid: number; last_activity: number }>(
    `SELECT pid, last_activity FROM entries INDEXED BY entries_feed
     WHERE reply_to = 0 AND deleted = 0 ORDER BY last_activity DESC, pid DESC LIMIT ? OFFSET ?`,
    perFile,
    file * perFile,
  );
}

function xmlDocument(root: string): CachedDocument {
  const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`);
  return { body, etag: etagOf(body), updated: 0 };
}

function urlset(origin: string, threads: { pid: number; last_activity: number }[]): CachedDocument {
  const urls = threads.map((t) =>
    parent('url', {}, [element('loc', {}, `${origin}/e/${t.pid}`), element('lastmod', {}, atomTime(t.last_activity))]),
  );
  return xmlDocument(parent('urlset', { xmlns: sitemapNs }, urls));
}

/**
 * /sitemap.xml: every live thread in one file while they fit, else the index of the files. The
 * front page, the log and the statistics are linked from every page, so crawlers need no sitemap
 * for them. `perFile`: tests pass a small one.
 */
export function sitemapDocument(db: Db, origin: string, perFile = sitemapUrls): CachedDocument {
  const count = liveThreadCount(db);
  if (count <= perFile) return urlset(origin, threadsOfFile(db, 0, perFile));
  const files = [];
  for (let file = 0; file * perFile < count; file++) {
    const [newest] = db.all<{ last_activity: number }>(
      `SELECT last_activity FROM entries INDEXED BY entries_feed
       WHERE reply_to = 0 AND deleted = 0 ORDER BY last_activity DESC, pid DESC LIMIT 1 OFFSET ?`,
      file * perFile,
    );
    files.push(
      parent('sitemap', {}, [
        element('loc', {}, `${origin}/sitemap/${file + 1}.xml`),
        ...(newest ? [element('lastmod', {}, atomTime(newest.last_activity))] : []),
      ]),
    );
  }
  return xmlDocument(parent('sitemapindex', { xmlns: sitemapNs }, files));
}

export function sitemapFile(db: Db, origin: string, n: number, perFile = sitemapUrls): CachedDocument | undefined {
  const count = liveThreadCount(db);
  if (count <= perFile || n < 1 || (n - 1) * perFile >= count) return undefined;
  return urlset(origin, threadsOfFile(db, n - 1, perFile));
}

const xmlAnswer = (description: string): Answer => ({ status: 200, description, mediaType: 'application/xml' });
const notModified: Answer = { status: 304, description: 'If-None-Match: the copy is current (no body)', empty: true };

export function sitemap(ctx: Ctx) {
  const { db, config } = ctx.app;
  const doc = responsesOf(db).document('/sitemap.xml', () => sitemapDocument(db, config.origin));
  sendDocument(ctx, xmlType, doc!, { 'Cache-Control': 'public, no-cache' });
}
sitemap.doc = {
  id: 'sitemap',
  summary: 'The live threads by last activity; past 50,000 an index of /sitemap/{n}.xml',
  ok: xmlAnswer('a urlset or a sitemapindex'),
  more: [notModified],
} satisfies Operation;

export function sitemapPart(ctx: Ctx<'file'>) {
  const match = /^([1-9]\d{0,5})\.xml$/.exec(ctx.params.file);
  if (!match) return notFoundPage(ctx);
  const n = Number(match[1]);
  const { db, config } = ctx.app;
  const doc = responsesOf(db).document(`/sitemap/${n}.xml`, () => sitemapFile(db, config.origin, n));
  if (!doc) return notFoundPage(ctx);
  sendDocument(ctx, xmlType, doc, { 'Cache-Control': 'public, no-cache' });
}
sitemapPart.doc = {
  id: 'sitemapFile',
  summary: 'The n-th file of the sitemap index ({n}.xml, from 1)',
  ok: xmlAnswer('a urlset'),
  more: [notModified, htmlAnswer(404, 'no such file, or one file holds every thread')],
} satisfies Operation;

/**
 * GET /robots.txt: crawlers may read every public page and image; the JSON API, the search
 * (every query would be a page of its own), the private feeds and the pages that need an account
 * are left out. Names the sitemap.
 */
export function robots(ctx: Ctx) {
  const body = Buffer.from(
    [
      'User-agent: *',
      'Disallow: /api/',
      'Disallow: /suche',
      'Disallow: /n/',
      'Disallow: /login',
      'Disallow: /register',
      'Disallow: /reset',
      'Disallow: /settings',
      'Disallow: /mod',
      'Disallow: /benachrichtigungen',
      'Allow: /modlog',
      '',
      `Sitemap: ${ctx.app.config.origin}/sitemap.xml`,
      '',
    ].join('\n'),
  );
  sendDocument(
    ctx,
    'text/plain; charset=utf-8',
    { body, etag: etagOf(body), updated: 0 },
    {
      'Cache-Control': 'public, max-age=3600',
    },
  );
}
robots.doc = {
  id: 'robots',
  summary: 'What crawlers may read, and where the sitemap is',
  ok: { status: 200, description: 'the rules', mediaType: 'text/plain' },
  more: [notModified],
} satisfies Operation;
