/** Where the board writes its lines; never a client address. */
export type Log = (line: string) => void;

/**
 * The server's log, written in one chunk per event-loop turn, so logging costs a string push on the
 * request path, not a write.
 */
export interface LineLog {
  (line: string): void;
  flush(): void;
}

/** Linux's PIPE_BUF (counted in UTF-16 units here: a line of non-ASCII text may pass it; it is then at worst cut once). */
const pipeBufferBytes = 4096;

export function createLineLog(out: NodeJS.WritableStream = process.stdout): LineLog {
  let pending: string[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    // Writes of at most PIPE_BUF bytes reach a pipe whole, so the lines of several server
    // processes (BOARD_WORKERS) sharing stdout never cut into each other.
    let chunk = '';
    for (const line of lines) {
      if (chunk && chunk.length + line.length >= pipeBufferBytes) {
        out.write(chunk);
        chunk = '';
      }
      chunk += `${line}\n`;
    }
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

/**
 * Logs a failure of work no request waits for as `what: ` and the error's stack. Why the stack: the
 * message alone does not say which statement of which job met it, and nobody else sees the error.
 */
export function logFailure(log: (line: string) => void, what: string, err: unknown): void {
  log(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
}
