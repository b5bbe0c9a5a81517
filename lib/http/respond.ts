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
 * How long a shared cache in front may answer logged-out readers with a copy: a new post reaches
 * them within seconds, a crowd on one page costs one request per period, and the stale time lets
 * the cache answer at once while it refreshes (or the board restarts) yet bounds how long a removed
 * page lives.
 */
export const sharedCache = { seconds: 5, staleSeconds: 15 } as const;

/**
 * The Cache-Control of every answer the board builds (files and media: lib/pages/files.ts).
 * `shared`: the same for every logged-out reader, with `Vary: Cookie` for a cache that keys on
 * headers rather than bypassing on the cookie; else `otherwise`, `no-store` for the API, whose
 * answers may be personal.
 */
export function cacheHeaders(shared: boolean, otherwise = 'no-store'): Record<string, string> {
  return shared
    ? {
        'Cache-Control': `public, max-age=0, s-maxage=${sharedCache.seconds}, stale-while-revalidate=${sharedCache.staleSeconds}, stale-if-error=${sharedCache.staleSeconds}`,
        Vary: 'Cookie',
      }
    : { 'Cache-Control': otherwise };
}

export function jsonHeaders(length: number, shared = false): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(length),
    ...cacheHeaders(shared),
    ...everyAnswerHeaders,
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  shared = false,
): void {
  sendJsonText(res, status, JSON.stringify(body ?? null), headers, shared);
}

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
 * Answers a failed request in the error shape of docs/API.md "Errors": an ApiError is the client's,
 * anything else is logged with its stack and answered 500. A body refused unread is drained
 * (bounded) before the answer: a client still sending when the connection closes gets a reset, not
 * the answer.
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
