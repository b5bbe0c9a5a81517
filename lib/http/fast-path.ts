import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { maxFeedPage } from '../entries/reads.ts';
import type { HitLines } from './hit-lines.ts';
import type { Route } from './route.ts';
import type { Services } from '../services.ts';

/**
 * The cached pages' short way out (docs/SCALING.md "Reads and writes per core"): a GET of a feed page or a thread that
 * the response cache holds, current, is answered here before the pipeline, as close to writing a
 * Buffer as node:http allows: one regular expression on the request target, the cache's check
 * for other processes' commits, headers made once per cached body. Everything the pipeline would
 * have done for these two routes still happens: they have no rate limit, session or body, the
 * Host rule is checked here, the answer carries the same headers, the log counts it (one line per
 * target and second, lib/http/hit-lines.ts) and the metrics observe it. Anything else (a query
 * string, HEAD, a miss, a bad number) takes the pipeline, which builds the page and answers
 * errors; so this path can only ever be a shortcut.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

const feedTarget = /^\/api\/entry\/feed\/(0|[1-9]\d{0,2})$/;
const threadTarget = /^\/api\/entry\/([1-9]\d{0,14})\/thread$/;

export function createFastPath(app: Services, routes: readonly Route[], hitLines: HitLines): FastPath {
  const feedRoute = routes.find((r) => r.method === 'GET' && r.path === '/api/entry/feed/:page');
  const threadRoute = routes.find((r) => r.method === 'GET' && r.path === '/api/entry/:pid/thread');
  // The answer's headers per cached body (bodies never change; a new page is a new Buffer).
  const heads = new WeakMap<Buffer, string[]>();
  const headOf = (body: Buffer) => {
    let head = heads.get(body);
    if (!head) {
      head = [
        'Content-Type',
        'application/json; charset=utf-8',
        'Content-Length',
        String(body.length),
        'Cache-Control',
        'no-store',
        'X-Content-Type-Options',
        'nosniff',
        'Referrer-Policy',
        'same-origin',
      ];
      heads.set(body, head);
    }
    return head;
  };

  return (req, res) => {
    if (req.method !== 'GET' || (req.headers.host === undefined && req.httpVersion === '1.1')) return false;
    const target = req.url ?? '';
    let body: Buffer | undefined;
    let route: Route | undefined;
    const feed = feedTarget.exec(target);
    try {
      if (feed) {
        const page = Number(feed[1]);
        if (page > maxFeedPage) return false;
        body = app.db.responses.cachedFeed(page);
        route = feedRoute;
      } else {
        const thread = threadTarget.exec(target);
        if (!thread) return false;
        body = app.db.responses.cachedThread(Number(thread[1]));
        route = threadRoute;
      }
    } catch {
      return false; // a failing database: the pipeline answers 500 and logs why
    }
    if (!body) return false;
    const metrics = app.metrics;
    const started = metrics ? performance.now() : 0; // the clock is read for the metrics only: the log line has no time
    res.writeHead(200, headOf(body));
    res.end(body);
    hitLines.count(target);
    metrics?.observeRequest(route, 'GET', 200, (performance.now() - started) / 1000);
    return true;
  };
}
