import { join } from 'node:path';
import type { Ctx } from '../http/context.ts';
import { sendFile } from '../http/static.ts';
import { fileNotModified, type Operation } from '../openapi/kit.ts';
import { notFoundPage } from './shell.ts';

/**
 * GET /sw.js: the service worker that shows Web Push notifications (web/sw.js). Served from the
 * origin's root because a worker's scope can only be its own folder or below: at /sw.js it may
 * control every page (scope `/`). The page's CSP needs no change: worker-src falls back to
 * default-src 'self'. no-cache: browsers check a worker for updates on every navigation anyway,
 * and a changed worker must reach them.
 */
export async function serviceWorker(ctx: Ctx) {
  const sent = await sendFile(ctx.res, join(ctx.app.config.webDir, 'sw.js'), {
    type: 'text/javascript; charset=utf-8',
    cacheControl: 'no-cache',
    head: ctx.req.method === 'HEAD',
    request: ctx.req.headers,
  });
  if (!sent) await notFoundPage(ctx);
}
serviceWorker.doc = {
  id: 'serviceWorker',
  summary: 'The service worker that shows push notifications (scope /)',
  ok: { status: 200, description: 'the script', mediaType: 'text/javascript' },
  more: [fileNotModified],
} satisfies Operation;
