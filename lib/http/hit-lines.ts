/**
 * The access log's lines for the answers the fast path takes from the response cache and for a
 * proxy's view notices: counted per path (without the query) and status, and written once a second
 * as one line each, `GET /api/entry/feed/0 200 cached x1234`; every other request keeps its own
 * line (docs/API.md "Log"). Why: at full read load a line per cached answer meant tens of thousands
 * of identical lines a second, which systemd-journald drops past its rate limit (error stacks
 * included), and cost a noticeable share of the answer's CPU (bench/results.md "The access log of
 * cached answers"). Bounded: only cache hits and notices are counted, so a second's paths are what
 * the cache held or the pipeline would have logged anyway.
 */
export interface HitLines {
  count(path: string, status: number, kind?: 'cached' | 'view'): void;
  flush(): void;
}

export const hitLinesMs = 1000;

export function createHitLines(log: (line: string) => void, everyMs = hitLinesMs): HitLines {
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
