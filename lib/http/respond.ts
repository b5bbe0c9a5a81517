import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestMessages } from '../messages.ts';

import { ClientGone } from './context.ts';
import { ApiError } from '../errors.ts';
import { loggedPath } from './logged-path.ts';
import type { Log } from '../log.ts';

/**
 * The headers every answer of the board carries, pages and files included (the pipeline sets them
 * first): no type sniffing, and no address of ours in another site's Referer.
 */
export const everyAnswerHeaders: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * How long a shared cache in front (nginx, a CDN: docs/OPERATIONS.md "A cache in front") may answer
 * logged-out readers with a copy. Why these: a new post reaches logged-out readers within 5 s,
 * while a crowd on one page costs the board one request per 5 s; for 15 s more the cache may answer
 * the old copy at once while it fetches the new one, so no reader waits on the refresh, or while
 * the board does not answer (a restart), and no longer: a copy of a page since removed never
 * outlives that bound. Browsers keep nothing (max-age=0): a reader's own reload always asks the cache again.
 */
export const sharedCache = { seconds: 5, staleSeconds: 15 } as const;

/**
 * The Cache-Control of every answer the board builds (files and media excepted: lib/pages/files.ts).
 * `shared`: the answer is the same for every logged-out reader (lib/http/route.ts `shared`, via
 * ctx.sharedAnswer or the fast path). `Vary: Cookie` says that a request with a session cookie is
 * answered otherwise (never shared), for a cache that keys on headers rather than bypassing it.
 * Anything else keeps `otherwise`: `no-store` for the API, whose answers may be personal.
 */
export function cacheHeaders(shared: boolean, otherwise = 'no-store'): Record<string, string> {
  return shared
    ? {
        'Cache-Control': `public, max-age=0, s-maxage=${sharedCache.seconds}, stale-while-revalidate=${sharedCache.staleSeconds}, stale-if-error=${sharedCache.staleSeconds}`,
        Vary: 'Cookie',
      }
    : { 'Cache-Control': otherwise };
}

/**
 * The headers of a JSON answer of `length` bytes, whichever way it leaves: the pipeline's
 * (sendJsonText) and the fast path's for cached pages (lib/http/fast-path.ts). Only a `shared`
 * answer may be kept by a shared cache (cacheHeaders).
 */
export function jsonHeaders(length: number, shared = false): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(length),
    ...cacheHeaders(shared),
    ...everyAnswerHeaders,
  };
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  shared = false,
): void {
  sendJsonText(res, status, JSON.stringify(body ?? null), headers, shared);
}

/** Writes already serialised JSON (a handler may return a Buffer from the response cache). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string | Buffer,
  headers: Record<string, string> = {},
  shared = false,
): void {
  res.writeHead(status, { ...jsonHeaders(Buffer.byteLength(text), shared), ...headers });
  res.end(text);
}

/**
 * Answers a failed request in the error shape of docs/API.md "Errors". An ApiError is the client's; anything else
 * is logged with its stack and answered 500 internal. A body refused unread is drained (bounded)
 * and the connection closed; when its declared length is within the bound the answer waits for
 * the drain: a client still sending when the connection closes gets EPIPE or a reset instead of
 * the answer (fetch did in about half the tries with a 300 KB upload, on Node 26 nearly always).
 */
export function sendError(
  log: Log,
  maxDrainBytes: number,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
): void {
  if (err instanceof ClientGone) return;
  const apiError = err instanceof ApiError ? err : new ApiError(500, 'internal');
  if (!(err instanceof ApiError))
    log(`error ${req.method} ${loggedPath(req.url?.split('?')[0] ?? '')}: ${(err as Error)?.stack ?? String(err)}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.removeHeader('Set-Cookie'); // a failed request changes no session
  const headers = { ...apiError.options.headers };
  const answer = () => sendJson(res, apiError.status, apiError.body(), headers);
  if (!bodyLeftUnread(req)) return answer();
  headers.Connection = 'close';
  const declared = Number(req.headers['content-length'] ?? Infinity);
  if (declared > maxDrainBytes) {
    drainOrDrop(req, maxDrainBytes);
    return answer();
  }
  req.once('end', answer);
  drainOrDrop(req, maxDrainBytes);
}

/** 400 with the request message, for requests the HTTP layer refuses before any route. */
export function badRequest(status = 400): ApiError {
  return new ApiError(status, 'input.invalid', { message: requestMessages.badRequest });
}

const statusTexts: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** Requests Node cannot parse (bad headers, oversized header block) still get our JSON error shape. */
export function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(badRequest(status).body());
  socket.end(
    `HTTP/1.1 ${status} ${statusTexts[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function bodyLeftUnread(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  return declared && !req.readableEnded;
}

function drainOrDrop(req: IncomingMessage, maxBytes: number): void {
  let drained = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) req.socket.destroy();
  });
  req.resume();
}
