import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLiveEntryImage } from '../entries/entries.ts';
import type { Ctx } from '../http/context.ts';
import { safeFilePath, sendFile, sendKeptFile } from '../http/static.ts';
import { boardMediaName, isMediaFormat, mediaFormats, mediaHeadBytes, type MediaFolder } from '../media/files.ts';
import { notFoundPage } from './shell.ts';
import { frontEndVersion } from './front-end-version.ts';
import { fileNotModified, html, type Operation } from '../openapi/kit.ts';

/**
 * Cache lifetimes of media (docs/API.md "Pages and static files"). Names are random and never
 * reused. Entry images: 5 minutes, so a deleted (or removed) entry's image leaves caches soon;
 * avatars: a day, they show on every entry of their owner and change rarely; preview thumbnails
 * are pictures of public pages, shared by every entry that links there: a year.
 */
const mediaCache: Record<MediaFolder, string> = {
  e: 'public, max-age=300',
  a: 'public, max-age=86400',
  preview: 'public, max-age=31536000, immutable',
};
const unchanging = mediaCache.preview;

/**
 * The policy of every media answer: a media file is only ever an image, so its document may run
 * nothing (`default-src 'none'`, `sandbox`); `style-src 'unsafe-inline'` lets the browser's own
 * viewer centre an image opened directly, and no style can reach an image.
 */
export const mediaCsp = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/**
 * GET /static/media/*: only a file the board itself would have written answers (named as the board
 * names them, in its folder's formats, beginning with the bytes of the format its name says),
 * served with that image type; anything else is 404, and an entry image is 404 once no live entry
 * owns it.
 */
export async function media(ctx: Ctx<'*'>) {
  const { mediaDir } = ctx.app.config;
  const path = safeFilePath(mediaDir, ctx.params['*']);
  if (!path) return notFoundPage(ctx);
  const relative = path
    .slice(mediaDir.length + 1)
    .split(sep)
    .join('/');
  const name = boardMediaName(relative);
  if (!name) return notFoundPage(ctx);
  // Even a file left on disk (a crash before its removal) is gone once its entry is.
  if (name.folder === 'e' && !isLiveEntryImage(ctx.app.db, relative)) return notFoundPage(ctx);
  const sent = await sendFile(ctx.res, path, {
    type: mediaFormats[name.extension].type,
    cacheControl: mediaCache[name.folder],
    headers: { 'Content-Security-Policy': mediaCsp },
    accept: { bytes: mediaHeadBytes, test: (head) => isMediaFormat(name.extension, head) },
    noFollow: true,
    head: ctx.req.method === 'HEAD',
    request: ctx.req.headers,
  });
  if (!sent) await notFoundPage(ctx);
}
media.doc = {
  id: 'media',
  summary: 'An uploaded image, avatar or preview thumbnail (the path may hold slashes)',
  description:
    "From `$BOARD_DATA/media/`, and only a file the board would have written: named `e/`, `a/` or `preview/` + 32 hex digits + `.jpg`, `.png`, `.gif` or `.webp` (thumbnails `.jpg` only), its first bytes that format, not a symbolic link; anything else there answers the 404 page, whatever put it there. Served with the type of its extension, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox` (an image opened directly loads and runs nothing; the inline style is what the browser's own image viewer needs). Entry images (`e/…`) only while a live entry owns the file (a deleted or removed entry's image answers 404, even if the file were still on disk), `Cache-Control: public, max-age=300`, so a deletion reaches caches within minutes. Avatars (`a/…`): `public, max-age=86400` (they show on every entry of their owner; a change gets a new name and the old file goes). Preview thumbnails (`preview/…`): `public, max-age=31536000, immutable` (pictures of public pages, shared by every entry linking there). Names are random and never reused.",
  ok: {
    status: 200,
    description:
      'the image with its type (JPEG, PNG, GIF or WebP), nosniff and a Content-Security-Policy that allows nothing',
    mediaType: 'image/*',
  },
  more: [
    fileNotModified,
    html(
      404,
      'no such file, a file the board did not write (by its name and first bytes), or an image no live entry owns',
    ),
  ],
} satisfies Operation;

export async function staticFile(ctx: Ctx<'*'>) {
  await sendFrontEndFile(ctx, undefined);
}

async function sendFrontEndFile(ctx: Ctx<'*'>, cacheControl: string | undefined): Promise<void> {
  const path = safeFilePath(join(ctx.app.config.webDir, 'static'), ctx.params['*']);
  const options = { head: ctx.req.method === 'HEAD', request: ctx.req.headers, cacheControl };
  if (!path || !(await sendKeptFile(ctx.res, path, options))) await notFoundPage(ctx);
}
staticFile.doc = {
  id: 'staticFile',
  summary: 'A file of the front end (the path may hold slashes)',
  ok: {
    status: 200,
    description: 'the file from web/static/, with `Cache-Control: no-cache`, an `ETag` and `Last-Modified`',
    mediaType: '*/*',
  },
  more: [fileNotModified, html(404, 'no such file')],
} satisfies Operation;

/**
 * GET /static/v/{version}/*: the front end's files as the pages name them. The current version's
 * never change, so caches keep them a year; an earlier version's path (a page from before a deploy)
 * gets today's file with `no-cache`.
 */
export async function versionedStaticFile(ctx: Ctx<'version' | '*'>) {
  const current = ctx.params.version === (await frontEndVersion(join(ctx.app.config.webDir, 'static')));
  await sendFrontEndFile(ctx, current ? unchanging : undefined);
}
versionedStaticFile.doc = {
  id: 'versionedStaticFile',
  summary: 'A file of the front end under its version, as the pages name it (the path may hold slashes)',
  description:
    "The pages name the front end's script, style sheets and modules under `/static/v/{version}/`, the version being 16 hex digits of a hash over every file of web/static, read when the process starts. The current version's files come with `Cache-Control: public, max-age=31536000, immutable`: a returning reader's browser loads none of them again until a deploy changes a file, and with it every path. Any other version answers today's file with `no-cache`, as `/static/*` does, so a page from before a deploy still works.",
  ok: {
    status: 200,
    description: 'the file from web/static/, with an `ETag` and `Last-Modified`',
    mediaType: '*/*',
  },
  more: [fileNotModified, html(404, 'no such file')],
} satisfies Operation;

/**
 * The ES modules of @simplewebauthn/browser, from the installed package: the front end's passkey
 * ceremonies load them from the board's own origin (CSP `default-src 'self'`), at the version
 * package-lock.json pins, with no copy in web/ to fall behind.
 */
const webAuthnBrowserDir = dirname(fileURLToPath(import.meta.resolve('@simplewebauthn/browser')));

export async function webAuthnBrowser(ctx: Ctx<'*'>) {
  const path = safeFilePath(webAuthnBrowserDir, ctx.params['*']);
  if (
    !path?.endsWith('.js') ||
    !(await sendKeptFile(ctx.res, path, { head: ctx.req.method === 'HEAD', request: ctx.req.headers }))
  )
    await notFoundPage(ctx);
}
webAuthnBrowser.doc = {
  id: 'webAuthnBrowser',
  summary: "The ES modules of @simplewebauthn/browser, served from the board's origin for the passkey pages",
  description:
    "A `.js` module of the installed package's `esm/` folder, `Cache-Control: no-cache`. Why from node_modules: the version package-lock.json pins, on the board's own origin (the CSP stays `'self'`), with no copy to fall behind.",
  ok: { status: 200, description: 'the module', mediaType: 'text/javascript' },
  more: [fileNotModified, html(404, 'no such module, or anything else there')],
} satisfies Operation;
