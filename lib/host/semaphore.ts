/** A bound on the waiting line: past it, or after waiting this long, a job is refused with SlotRefused. */
export interface QueueBound {
  maxWaiting: number;
  maxWaitMs: number;
}

/** Why a job got no slot: the line was full, or it waited too long. */
export class SlotRefused extends Error {
  readonly reason: 'full' | 'waited';
  constructor(reason: 'full' | 'waited') {
    super(`no slot: ${reason}`);
    this.reason = reason;
    this.name = 'SlotRefused';
  }
}

/** A semaphore's job runner, with a look at its line (lib/metrics: the hashing queue's depth). */
export interface Semaphore {
  <T>(work: () => Promise<T>, signal?: AbortSignal, bound?: QueueBound): Promise<T>;
  /** Jobs holding a slot and jobs waiting for one, right now. */
  load(): { running: number; waiting: number };
}

/**
 * Runs at most `limit` async jobs at once; the rest wait in order. A job whose signal aborts
 * while it waits leaves the queue at once (a login whose client went away costs no hashing).
 * A job given a QueueBound is refused instead of joining a line that is full, and leaves it
 * after maxWaitMs: a line without a bound grows as long as a flood keeps it fed.
 */
export function createSemaphore(limit: number): Semaphore {
  let running = 0;
  const waiting: (() => void)[] = [];

  /** Hands the slot to the next waiter (it inherits the count) or frees it. */
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
