import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Services } from '../services.ts';
import type { HitLines } from './hit-lines.ts';
import { countPageGet } from './page-views.ts';
import { wantsActivityJson } from './negotiation.ts';
import { jsonHeaders } from './respond.ts';
import { mayShare, type CacheLookup, type CachedPage, type Route } from './route.ts';

/**
 * The cached pages' short way out (docs/SCALING.md "Reads and writes per core"): a GET of a row
 * with a `cache` whose answer the response cache holds, current, is answered here before the
 * pipeline, as close to writing a Buffer as node:http allows: one regular expression per cached row
 * on the raw target, the row's lookup, headers made once per cached body. What the pipeline would
 * do for these rows still happens: they have no rate limit, session or body; the Host rule is
 * checked here; the log (lib/http/hit-lines.ts), the metrics and the view count
 * (lib/http/page-views.ts) see the answer. Anything else (another spelling, an encoded character,
 * HEAD, a miss, a bad number) takes the pipeline, so this path can only ever be a shortcut.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

interface CachedRow {
  route: Route;
  target: RegExp;
  names: string[];
  lookup: CacheLookup;
}

const segment = '([^/?#%]+)';

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
    const started = metrics ? performance.now() : 0;
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
