/**
 * The server's log: one line per request plus errors. Lines are collected and written in one
 * chunk per event-loop turn, so logging costs a string push on the request path, not a write.
 */
export interface LineLog {
  (line: string): void;
  flush(): void;
}

export function createLineLog(out: NodeJS.WritableStream = process.stdout): LineLog {
  let pending: string[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.join('\n') + '\n';
    pending = [];
    out.write(chunk);
  };

  const log = ((line: string) => {
    pending.push(line);
    if (pending.length >= 1000) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }) as LineLog;
  log.flush = flush;
  return log;
}
