import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Ctx } from './context.ts';

/** A strong ETag of a body: its SHA-256, shortened (collisions between two versions of one feed are not a concern). */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

export function isNotModified(headers: IncomingHttpHeaders, etag: string, updated: number): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === etag || tag === '*');
  }
  const since = Date.parse(headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(since / 1000) >= updated;
}

/**
 * A document's Last-Modified: its time, but at most the second before now. Why: an HTTP date counts
 * whole seconds, so a copy sent in the second of a change could not be told from one of a later
 * change in that second; a second that is over can change no more.
 */
export function lastModifiedOf(updated: number, now: number): number {
  return Math.min(updated, now - 1);
}

export function sendDocument(
  ctx: Ctx,
  type: string,
  doc: { body: Buffer; etag: string; updated: number },
  headers: Record<string, string> = {},
): void {
  const lastModified = lastModifiedOf(doc.updated, ctx.app.clock.now());
  const validators = { ETag: doc.etag, 'Last-Modified': new Date(lastModified * 1000).toUTCString(), ...headers };
  if (isNotModified(ctx.req.headers, doc.etag, doc.updated)) {
    ctx.res.writeHead(304, validators);
    ctx.res.end();
    return;
  }
  ctx.res.writeHead(200, { 'Content-Type': type, 'Content-Length': doc.body.length, ...validators });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : doc.body);
}
