import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDb, type Db } from './db.ts';
import { readForm, type Form } from './http/body.ts';
import { clientIp } from './http/client-ip.ts';
import { parseCookies } from './http/cookies.ts';
import { ClientGone, Reply, type Ctx, type Services } from './http/context.ts';
import { ApiError } from './http/errors.ts';
import { createRouter } from './http/router.ts';
import { isForeignOrigin } from './http/origin.ts';
import { boardRateRules, createRateLimiter } from './rate-limit.ts';
import { routes } from './routes.ts';
import { findSessionByToken, type Session } from './sessions.ts';
import { notFoundPage } from './api/pages.ts';
import { startHousekeeping } from './housekeeping.ts';
import { openAsnDb } from './asn.ts';
import { ImpressionTally, startImpressionFlush } from './impressions.ts';
import { openTorExitList } from './tor.ts';
import { startPreviewQueue, type PreviewOptions } from './preview/queue.ts';
import { createLineLog } from './log.ts';

export interface AppOptions {
  clock?: Clock;
  log?: (line: string) => void;
  db?: Db;
  /** Link-preview fetcher knobs (tests shorten the timeout); the queue runs when config.previewEnabled. */
  preview?: PreviewOptions;
  /** Slow-client limits in milliseconds; tests shorten them. */
  timeouts?: { headersMs?: number; requestMs?: number };
}

export interface App {
  server: Server;
  services: Services;
  /** Stops background work and closes the database (after the server has stopped). */
  close(): Promise<void>;
}

const router = createRouter(routes);
const urlencodedLimit = 64 * 1024;

/** Builds the whole board for one config: database, services, HTTP server (not yet listening). */
export function createApp(config: Config, options: AppOptions = {}): App {
  const defaultLog = createLineLog();
  const services: Services = {
    config,
    db: options.db ?? openDb(config.dbPath, { backgroundCheckpoints: true }),
    clock: options.clock ?? systemClock,
    limiter: createRateLimiter(boardRateRules),
    tor: openTorExitList(config.torExitsFile),
    log: options.log ?? defaultLog,
    asn: openAsnDb(config.asnDb),
    impressions: new ImpressionTally(),
  };
  const stopHousekeeping = startHousekeeping(services);
  const stopImpressions = startImpressionFlush(services);
  if (config.previewEnabled) services.previews = startPreviewQueue(services, options.preview);

  // Slow clients: headers must arrive within 10 s and a whole request within 60 s. Node checks
  // both only every connectionsCheckingInterval (30 s by default, which let a slowloris client
  // keep a connection 30 s), so check at a fifth of the headers limit.
  const headersMs = options.timeouts?.headersMs ?? 10_000;
  // requireHostHeader off: Node's own 400 for a missing Host has no JSON body; handleRequest answers it.
  const serverOptions = { connectionsCheckingInterval: Math.max(50, Math.round(headersMs / 5)), requireHostHeader: false };
  const server = createServer(serverOptions, (req, res) => {
    void handleRequest(services, req, res);
  });
  server.headersTimeout = headersMs;
  server.requestTimeout = options.timeouts?.requestMs ?? 60_000;
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerMalformedRequest);
  server.on('checkExpectation', (req, res) => sendError(services, req, res, new ApiError(417, 'input.invalid', { message: 'Ungültige Anfrage.' })));

  return {
    server,
    services,
    async close() {
      stopHousekeeping();
      await services.previews?.stop(); // aborts fetches in flight; their jobs stay queued
      stopImpressions(); // writes the last counts: before the database closes
      await services.db.close();
      defaultLog.flush();
    },
  };
}

async function handleRequest(app: Services, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const url = requestUrl(req.url);
  const method = req.method ?? 'GET';
  res.on('finish', () => app.log(`${method} ${url.pathname} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');

  const ctx = makeContext(app, req, res, url);
  try {
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a bad request.
    if (req.httpVersion === '1.1' && req.headers.host === undefined) throw new ApiError(400, 'input.invalid', { message: 'Ungültige Anfrage.' });
    if (method !== 'GET' && method !== 'HEAD' && isForeignOrigin(req, app.config.origin)) {
      throw new ApiError(403, 'csrf.bad_origin');
    }
    const match = router.match(method, url.pathname);
    if (match.kind === 'not_found') {
      if (isApiPath(url.pathname)) throw new ApiError(404, 'api.not_found');
      return await notFoundPage(ctx);
    }
    if (match.kind === 'method_not_allowed') {
      throw new ApiError(405, 'api.method_not_allowed', { headers: { Allow: match.allow.join(', ') } });
    }
    const { route, params } = match;
    ctx.params = params;
    if (route.rateLimit) {
      const wait = app.limiter.hit(route.rateLimit, ctx.ip, app.clock.now());
      if (wait > 0) throw new ApiError(429, 'rate.limited', { headers: { 'Retry-After': String(wait) } });
    }
    if (route.auth && !ctx.session()) throw new ApiError(401, 'auth.required');
    const result = await route.handler(ctx);
    if (res.headersSent) return;
    if (result instanceof Reply) sendJson(res, result.status, result.body, result.headers);
    else if (Buffer.isBuffer(result)) sendJsonText(res, 200, result);
    else sendJson(res, 200, result);
  } catch (err) {
    sendError(app, req, res, err);
  }
}

function makeContext(app: Services, req: IncomingMessage, res: ServerResponse, url: URL): Ctx {
  let session: Session | undefined | null = null;
  let form: Promise<Form> | undefined;
  let aborter: AbortController | undefined;
  const cookies = parseCookies(req.headers.cookie);
  return {
    app, req, res, url, cookies,
    params: {},
    ip: clientIp(req, app.config.trustProxy),
    session() {
      if (session === null) session = cookies.session ? findSessionByToken(app.db, cookies.session, app.clock.now()) : undefined;
      return session;
    },
    form() {
      form ??= readForm(req, { maxMultipart: app.config.maxUpload, maxUrlencoded: urlencodedLimit });
      return form;
    },
    setCookie(cookie) {
      const previous = res.getHeader('Set-Cookie');
      res.setHeader('Set-Cookie', [...(Array.isArray(previous) ? previous : []), cookie]);
    },
    get signal() {
      if (!aborter) {
        const controller = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) controller.abort(new ClientGone('client went away'));
        });
        aborter = controller;
      }
      return aborter.signal;
    },
  };
}

/** Parses the request target as a path on our own origin ('//evil/x' stays a path). */
function requestUrl(target = '/'): URL {
  try {
    return new URL(`http://board.invalid${target.startsWith('/') ? '' : '/'}${target}`);
  } catch {
    return new URL('http://board.invalid/.invalid');
  }
}

function isApiPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/');
}

/** Writes a JSON answer; API answers are personal, so nothing may cache them. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body ?? null), headers);
}

/** Writes already serialised JSON (a handler may return a Buffer from the view cache). */
function sendJsonText(res: ServerResponse, status: number, text: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

function sendError(app: Services, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (err instanceof ClientGone) return;
  const apiError = err instanceof ApiError ? err : new ApiError(500, 'internal');
  if (!(err instanceof ApiError)) app.log(`error ${req.method} ${req.url?.split('?')[0]}: ${(err as Error)?.stack ?? String(err)}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.removeHeader('Set-Cookie'); // a failed request changes no session
  const headers = { ...apiError.options.headers };
  if (bodyLeftUnread(req)) {
    // The body was refused unread: answer, then drain a bounded amount and close the connection.
    headers.Connection = 'close';
    drainOrDrop(req, app.config.maxUpload * 2);
  }
  sendJson(res, apiError.status, apiError.body(), headers);
}

/** Requests Node cannot parse (bad headers, oversized header block) still get our JSON error shape. */
function answerMalformedRequest(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(new ApiError(status, 'input.invalid', { message: 'Ungültige Anfrage.' }).body());
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
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
