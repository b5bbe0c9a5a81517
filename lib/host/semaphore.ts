/** A bound on the waiting line: past it, or after waiting this long, a job is refused with SlotRefused. */
export interface QueueBound {
  maxWaiting: number;
  maxWaitMs: number;
}

export class SlotRefused extends Error {
  readonly reason: 'full' | 'waited';
  constructor(reason: 'full' | 'waited') {
    super(`no slot: ${reason}`);
    this.reason = reason;
    this.name = 'SlotRefused';
  }
}

export interface Semaphore {
  <T>(work: () => Promise<T>, signal?: AbortSignal, bound?: QueueBound): Promise<T>;
  load(): { running: number; waiting: number };
}

/**
 * Runs at most `limit` async jobs at once; the rest wait in order. A job whose signal aborts while
 * waiting leaves the line (a login whose client went away costs no hashing). With a QueueBound a
 * job is refused when the line is full and leaves it after maxWaitMs: no flood grows the line.
 */
export function createSemaphore(limit: number): Semaphore {
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  const acquire = (signal?: AbortSignal, bound?: QueueBound) =>
    new Promise<void>((resolve, reject) => {
      if (bound && waiting.length >= bound.maxWaiting) return reject(new SlotRefused('full'));
      let timer: NodeJS.Timeout | undefined;
      const leave = (reason: unknown) => {
        const index = waiting.indexOf(grant);
        if (index >= 0) waiting.splice(index, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(reason);
      };
      const onAbort = () => leave(signal!.reason);
      const grant = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (bound) timer = setTimeout(() => leave(new SlotRefused('waited')), bound.maxWaitMs);
    });

  const withSlot = async <T>(work: () => Promise<T>, signal?: AbortSignal, bound?: QueueBound): Promise<T> => {
    signal?.throwIfAborted();
    if (running < limit) running++;
    else await acquire(signal, bound);
    try {
      signal?.throwIfAborted();
      return await work();
    } finally {
      release();
    }
  };
  return Object.assign(withSlot, { load: () => ({ running, waiting: waiting.length }) });
}
