import { join, sep } from 'node:path';
import { isLiveEntryImage } from '../entries.ts';
import type { Ctx } from '../http/context.ts';
import { safeFilePath, sendFile } from '../http/static.ts';
import { notFoundPage } from './shell.ts';

/**
 * Cache lifetimes of media (docs/API.md "Pages and static files"). Names are random and never
 * reused. Entry images: 5 minutes, so a deleted (or removed) entry's image leaves caches soon;
 * avatars: a day, they show on every entry of their owner and change rarely; preview thumbnails
 * are pictures of public pages, shared by every entry that links there: a year.
 */
const mediaCache: Record<string, string> = {
  e: 'public, max-age=300',
  a: 'public, max-age=86400',
  preview: 'public, max-age=31536000, immutable',
};

/** GET /static/media/*: uploads, avatars and thumbnails. An entry image answers only while a live entry owns it. */
export async function media(ctx: Ctx) {
  const { mediaDir } = ctx.app.config;
  const path = safeFilePath(mediaDir, ctx.params['*']!);
  if (!path) return notFoundPage(ctx);
  const relative = path.slice(mediaDir.length + 1).split(sep).join('/'); // as filepath stores it
  const folder = relative.split('/')[0]!;
  // Even a file left on disk (a crash before its removal) is gone once its entry is.
  if (folder === 'e' && !isLiveEntryImage(ctx.app.db, relative)) return notFoundPage(ctx);
  const cacheControl = mediaCache[folder] ?? 'no-cache';
  if (!(await sendFile(ctx.res, path, { cacheControl, head: ctx.req.method === 'HEAD' }))) await notFoundPage(ctx);
}

/** GET /static/*: the front end's own files. */
export async function staticFile(ctx: Ctx) {
  const path = safeFilePath(join(ctx.app.config.webDir, 'static'), ctx.params['*']!);
  if (!path || !(await sendFile(ctx.res, path, { head: ctx.req.method === 'HEAD' }))) await notFoundPage(ctx);
}
