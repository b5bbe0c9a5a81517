import { join } from 'node:path';
import type { Ctx } from '../http/context.ts';
import { safeFilePath, sendFile } from '../http/static.ts';
import { notFoundPage } from './shell.ts';

/** GET /static/media/*: uploads, avatars and thumbnails. Names are random, so they never change. */
export async function media(ctx: Ctx) {
  const path = safeFilePath(ctx.app.config.mediaDir, ctx.params['*']!);
  const cacheControl = 'public, max-age=31536000, immutable';
  if (!path || !(await sendFile(ctx.res, path, { cacheControl, head: ctx.req.method === 'HEAD' }))) await notFoundPage(ctx);
}

/** GET /static/*: the front end's own files. */
export async function staticFile(ctx: Ctx) {
  const path = safeFilePath(join(ctx.app.config.webDir, 'static'), ctx.params['*']!);
  if (!path || !(await sendFile(ctx.res, path, { head: ctx.req.method === 'HEAD' }))) await notFoundPage(ctx);
}
