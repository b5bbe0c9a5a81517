import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Services } from '../services.ts';
import type { HitLines } from './hit-lines.ts';
import { countPageGet } from './page-views.ts';
import { wantsActivityJson } from './negotiation.ts';
import { jsonHeaders } from './respond.ts';
import { mayShare, type CacheLookup, type CachedPage, type Route } from './route.ts';

/**
 * The cached pages' short way out (docs/SCALING.md "Reads and writes per core"): a GET of a row that names a cache
 * (lib/routes.ts `cache`: the feed pages and threads, and the drawn pages /, /e/{pid},
 * /u/{username}, /suche and /modlog) whose answer the response cache holds, current, is answered here before the
 * pipeline, as close to writing a Buffer as node:http allows: one regular expression per cached
 * row on the request target (a `cacheQuery` row's takes a query too), the row's lookup (which
 * reads the parameters and that query as the handler does and checks for other processes'
 * commits), headers made once per cached body (by the function the pipeline's JSON answers use,
 * or the page's own).
 * Everything the pipeline would have done for these rows still happens: they have no rate limit,
 * session or body, the Host rule is checked here, the log counts the answer under its path as the
 * pipeline logs it, without the query (one line per path, status and second,
 * lib/http/hit-lines.ts), the metrics observe it, and a page that counts a view counts it
 * (lib/http/page-views.ts). Anything else (a query string on another row
 * or in another spelling, an encoded character, HEAD, a miss, a bad number) takes the pipeline,
 * which builds the page and answers errors; so this path can only ever be a shortcut.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

interface CachedRow {
  route: Route;
  /** The row's path as an anchored expression over the raw request target, one group per parameter, then the query's. */
  target: RegExp;
  names: string[];
  lookup: CacheLookup;
}

/** A parameter as the fast path takes it: one segment with nothing to decode and no query. */
const segment = '([^/?#%]+)';

/**
 * `/api/entry/:pid/thread` → /^\/api\/entry\/([^/?#%]+)\/thread$/ and its parameter names; a
 * `cacheQuery` row's expression takes an optional `?…` after the path as its last group.
 */
function compile(route: Route, lookup: CacheLookup): CachedRow {
  // The fast path checks no session, limit or body, and matches whole segments only.
  if (
    route.method !== 'GET' ||
    route.auth ||
    route.mod ||
    route.rateLimit ||
    route.writeLimit ||
    route.path.endsWith('*')
  )
    throw new Error(
      `${route.method} ${route.path}: only a public GET without limits or * can be served from the cache`,
    );
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1));
      return segment;
    })
    .join('\\/');
  const query = route.cacheQuery ? '(?:\\?(.*))?' : '';
  return { route, target: new RegExp(`^${source}${query}$`), names, lookup };
}

export function createFastPath(app: Services, routes: readonly Route[], hitLines: HitLines): FastPath {
  const rows = routes.flatMap((route) => (route.cache ? [compile(route, route.cache)] : []));
  // The answer's headers per cached body, for a shareable request and for one with a session
  // cookie (bodies never change; a new page is a new Buffer).
  const heads = new WeakMap<Buffer, [shared: string[], own: string[]]>();
  const headOf = (body: Buffer, shared: boolean) => {
    let head = heads.get(body);
    if (!head) {
      head = [Object.entries(jsonHeaders(body.length, true)).flat(), Object.entries(jsonHeaders(body.length)).flat()];
      heads.set(body, head);
    }
    return head[shared ? 0 : 1];
  };

  return (req, res) => {
    if (req.method !== 'GET' || (req.headers.host === undefined && req.httpVersion === '1.1')) return false;
    const target = req.url ?? '';
    let body: Buffer | CachedPage | undefined;
    let row: CachedRow | undefined;
    try {
      for (const candidate of rows) {
        const match = candidate.target.exec(target);
        if (!match) continue;
        const params: Record<string, string> = {};
        for (let i = 0; i < candidate.names.length; i++) params[candidate.names[i]!] = match[i + 1]!;
        // An ActivityPub client asks for the object, which the cache never holds: the handler answers it.
        if (candidate.route.negotiated && app.config.federation !== 'off' && wantsActivityJson(req.headers.accept))
          return false;
        body = candidate.lookup(app, params, match[candidate.names.length + 1]);
        row = candidate;
        break;
      }
    } catch {
      return false; // a bad parameter or a failing database: the pipeline answers (400, 500) and logs why
    }
    if (!body || !row) return false;
    const metrics = app.metrics;
    const started = metrics ? performance.now() : 0; // the clock is read for the metrics only: the log line has no time
    const shared = mayShare(row.route, req.headers.cookie);
    let status = 200;
    if (Buffer.isBuffer(body)) {
      res.writeHead(200, headOf(body, shared));
      res.end(body);
    } else {
      status = body.status;
      res.writeHead(status, (shared ? body.head.shared : body.head.own) as string[]);
      res.end(body.body);
    }
    const mark = target.indexOf('?');
    hitLines.count(mark < 0 ? target : target.slice(0, mark), status);
    if (row.route.views && status === 200) countPageGet(app, req);
    metrics?.observeRequest(row.route, 'GET', status, (performance.now() - started) / 1000);
    return true;
  };
}
