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
 * lib/limits/product.ts maxFeedPage) and threads and drawn pages the cache held in it (2,000 each
 * at a time, lib/http/response-cache.ts, each built by a request of its own before it can be
 * counted); a drawn page answers 200 or 410.
 */
export interface HitLines {
  /** One more cached answer to this path with this status. */
  count(path: string, status: number): void;
  /** Writes the counts now (a graceful stop writes them before the log's last flush). */
  flush(): void;
}

/** How often the counts become lines. */
export const hitLinesMs = 1000;

export function createHitLines(log: (line: string) => void, everyMs = hitLinesMs): HitLines {
  /** By status, then by path. */
  let counts = new Map<number, Map<string, number>>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (counts.size === 0) return;
    const written = counts;
    counts = new Map();
    for (const [status, paths] of written)
      for (const [path, count] of paths) log(`GET ${path} ${status} cached x${count}`);
  };

  return {
    count(path, status) {
      let paths = counts.get(status);
      if (!paths) counts.set(status, (paths = new Map()));
      paths.set(path, (paths.get(path) ?? 0) + 1);
      // Unref'd: a second of counts never keeps a stopping process alive; the stop flushes them.
      timer ??= setTimeout(flush, everyMs).unref();
    },
    flush,
  };
}
