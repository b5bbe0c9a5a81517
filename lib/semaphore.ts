/**
 * Runs at most `limit` async jobs at once; the rest wait in order. A job whose signal aborts
 * while it waits leaves the queue at once (a login whose client went away costs no hashing).
 */
export function createSemaphore(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];

  /** Hands the slot to the next waiter (it inherits the count) or frees it. */
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  const acquire = (signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      const index = waiting.indexOf(grant);
      if (index >= 0) waiting.splice(index, 1);
      reject(signal!.reason);
    };
    const grant = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    waiting.push(grant);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

  return async function withSlot<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (running < limit) running++;
    else await acquire(signal);
    try {
      signal?.throwIfAborted();
      return await work();
    } finally {
      release();
    }
  };
}
