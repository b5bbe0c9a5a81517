/**
 * The access log's lines for the answers the fast path (lib/http/fast-path.ts) takes from the
 * response cache: counted per path (without the query, as the pipeline logs it) and status, and
 * written as one line per path and status once a second, `GET /api/entry/feed/0 200 cached x1234`,
 * instead of a line each. Every other request keeps its own line (docs/API.md "Log").
 *
 * Why: a busy board's log was almost all identical lines of cached feed pages and threads, whose
 * milliseconds only ever timed Node's writeHead and end (0.0–0.1 ms). At full read load that is
 * tens of thousands of lines a second, and systemd-journald by default drops a service's messages
 * past 10,000 in 30 s times a factor for the free disk space (50,000 with up to 64 GB free, its
 * RateLimitBurst), its error stacks included. And a line per cached answer cost about 4 % of
 * that answer's CPU (bench/results.md "The access log of cached answers"). The count keeps what
 * the lines told: path, status, how many.
 *
 * Bounded: only cache hits are counted, so the paths of one second are feed pages (at most 101,
 * lib/product.ts maxFeedPage) and threads and drawn pages the cache held in it (2,000 each
 * at a time, lib/http/response-cache.ts, each built by a request of its own before it can be
 * counted); a drawn page answers 200 or 410.
 *
 * A proxy's view notices (lib/http/page-views.ts) are counted the same way, `GET / 204 view x1234`:
 * one reaches the board for every page view the proxy answers, its cache's hits included. Their
 * paths are any the proxy forwards as a page, at most one new path per notice, as the pipeline's
 * line per request.
 */
export interface HitLines {
  /** One more answer to this path with this status: a cached one, or (`view`) a view notice. */
  count(path: string, status: number, kind?: 'cached' | 'view'): void;
  /** Writes the counts now (a graceful stop writes them before the log's last flush). */
  flush(): void;
}

/** How often the counts become lines. */
export const hitLinesMs = 1000;

export function createHitLines(log: (line: string) => void, everyMs = hitLinesMs): HitLines {
  /** By status and kind ("200 cached"), then by path. */
  let counts = new Map<string, Map<string, number>>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (counts.size === 0) return;
    const written = counts;
    counts = new Map();
    for (const [answer, paths] of written) for (const [path, count] of paths) log(`GET ${path} ${answer} x${count}`);
  };

  return {
    count(path, status, kind = 'cached') {
      const answer = `${status} ${kind}`;
      let paths = counts.get(answer);
      if (!paths) counts.set(answer, (paths = new Map()));
      paths.set(path, (paths.get(path) ?? 0) + 1);
      // Unref'd: a second of counts never keeps a stopping process alive; the stop flushes them.
      timer ??= setTimeout(flush, everyMs).unref();
    },
    flush,
  };
}
