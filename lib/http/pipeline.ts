import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { mayShare, type Route } from './route.ts';
import type { Services } from '../services.ts';
import { checkWriteLimit } from '../limits/write-limits.ts';
import { rateLimitMessage } from '../limits/rate-limit.ts';
import { makeContext, Reply, requireModerator, type Ctx } from './context.ts';
import { ApiError } from '../errors.ts';
import { loggedPath } from './logged-path.ts';
import { isForeignOrigin } from './origin.ts';
import { createFastPath } from './fast-path.ts';
import { answerViewNotice, countPageGet, type CountedPage } from './page-views.ts';
import type { HitLines } from './hit-lines.ts';
import { badRequest, everyAnswerHeaders, sendError, sendJson, sendJsonText } from './respond.ts';
import { createRouter, type Match } from './router.ts';
import type { FederationMode } from '../config.ts';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The request pipeline in the order of docs/API.md "Order of checks" (after a proxy's view notice
 * and the fast path): Host, CSRF, route, rate limit, session, moderator, write limit, then the
 * handler. The only try/catch: handlers throw ApiError, anything else is a 500.
 */
export function createRequestListener(
  app: Services,
  routes: readonly Route[],
  pages: { notFound: (ctx: Ctx) => Promise<void>; counted: CountedPage },
  hitLines: HitLines,
): RequestListener {
  const router = createRouter(routes);
  // A refused body is read and dropped up to this bound before the connection closes (at least
  // 1 MiB: reading that costs little, and a client cut off while it sends never sees the answer).
  const maxDrainBytes = Math.max(app.config.maxUpload * 2, 2 ** 20);
  const fastPath = createFastPath(app, routes, hitLines);

  return (req, res) => {
    if (answerViewNotice(app, req, res, pages.counted, hitLines)) return;
    if (!fastPath(req, res)) void handle(req, res);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = requestUrl(req.url);
    const method = req.method ?? 'GET';
    let matched: Route | undefined;
    res.on('finish', () => {
      const ms = performance.now() - started;
      app.log(`${method} ${loggedPath(url.pathname)} ${res.statusCode} ${ms.toFixed(1)}ms`);
      app.metrics?.observeRequest(matched, method, res.statusCode, ms / 1000);
    });
    for (const [name, value] of Object.entries(everyAnswerHeaders)) res.setHeader(name, value);

    const ctx = makeContext(app, req, res, url);
    try {
      // RFC 9112 §3.2: an HTTP/1.1 request without Host is a bad request.
      if (req.httpVersion === '1.1' && req.headers.host === undefined) throw badRequest();
      if (method !== 'GET' && method !== 'HEAD' && isForeignOrigin(req, app.config.origin)) {
        throw new ApiError(403, 'csrf.bad_origin');
      }
      const match = federationOff(router.match(method, url.pathname), app.config.federation);
      if (match.kind === 'not_found') {
        if (isApiPath(url.pathname)) throw new ApiError(404, 'api.not_found');
        return void (await pages.notFound(ctx));
      }
      if (match.kind === 'method_not_allowed') {
        throw new ApiError(405, 'api.method_not_allowed', { headers: { Allow: match.allow.join(', ') } });
      }
      const { route, params } = match;
      matched = route;
      ctx.params = params;
      ctx.shareable = mayShare(route, req.headers.cookie);
      if (route.rateLimit) {
        const wait = app.limiter.hit(route.rateLimit, ctx.ip, app.clock.now());
        if (wait > 0)
          throw new ApiError(429, 'rate.limited', {
            headers: { 'Retry-After': String(wait) },
            limit: `rate/${route.rateLimit}`,
            message: rateLimitMessage(route.rateLimit, app.config.limitsFactor, wait),
          });
      }
      if ((route.auth || route.mod) && !ctx.session()) throw new ApiError(401, 'auth.required');
      if (route.mod) requireModerator(ctx);
      if (route.writeLimit) {
        const createShare = route.writeLimit === 'create' ? ctx.standing()?.createShare : undefined;
        const writer = { uid: ctx.session()?.uid, ip: ctx.ip, createShare };
        checkWriteLimit(app.limits, route.writeLimit, writer, app.config.limitsFactor, app.clock.now());
      }
      const result = await route.handler(ctx);
      if (route.views && method === 'GET' && res.statusCode === 200 && isHtml(res)) countPageGet(app, req, ctx.ip);
      if (res.headersSent) return;
      if (result instanceof Reply)
        sendJson(res, result.status, result.body, result.headers, ctx.sharedAnswer(result.status));
      else if (Buffer.isBuffer(result)) sendJsonText(res, 200, result, {}, ctx.sharedAnswer(200));
      else sendJson(res, 200, result, {}, ctx.sharedAnswer(200));
    } catch (err) {
      if (err instanceof ApiError && err.options.limit) app.metrics?.countRefusal(err.options.limit);
      sendError(app.log, maxDrainBytes, req, res, app.disk.answer(err));
    }
  }
}

function isHtml(res: ServerResponse): boolean {
  return String(res.getHeader('Content-Type') ?? '').startsWith('text/html');
}

function federationOff(match: Match<Route>, mode: FederationMode): Match<Route> {
  return mode === 'off' && match.kind === 'found' && match.route.federation ? { kind: 'not_found' } : match;
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
