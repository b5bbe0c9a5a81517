import type { Worker } from 'node:cluster';
import { createSemaphore, SlotRefused, type QueueBound, type Semaphore } from '../../host/semaphore.ts';
import { slotLimits, type MachineSlots, type SlotPool } from '../../host/machine-slots.ts';

/*
 * The machine's hashing, image and search slots with several processes (lib/host/machine-slots.ts
 * says why): the primary holds one semaphore per pool and hands slots to workers over the cluster's
 * IPC channel:
 * worker → primary {board: 'slot', op: 'acquire' | 'cancel' | 'release', pool, id}
 * primary → worker {board: 'slot', op: 'grant', pool, id}
 * Ids count per pool and worker. A worker that dies gives back everything it held or waited for.
 */
export interface SlotMessage {
  board: 'slot';
  op: 'acquire' | 'cancel' | 'release' | 'grant';
  pool: SlotPool;
  id: number;
}

export function isSlotMessage(message: unknown): message is SlotMessage {
  return typeof message === 'object' && message !== null && (message as { board?: unknown }).board === 'slot';
}

/**
 * A worker's semaphore for one pool, with the local one's contract: the bound (line length, wait)
 * applies to this process's line; a caller that gives up while waiting leaves the primary's line too.
 */
export function remoteSemaphore(
  pool: SlotPool,
  send: (message: SlotMessage) => void,
  onGrant: (listener: (id: number) => void) => void,
): Semaphore {
  let nextId = 1;
  let running = 0;
  const waiting = new Map<number, () => void>();
  onGrant((id) => {
    const grant = waiting.get(id);
    if (grant) grant();
    else send({ board: 'slot', op: 'release', pool, id }); // granted after the caller gave up
  });

  const acquire = (signal?: AbortSignal, bound?: QueueBound) =>
    new Promise<number>((resolve, reject) => {
      if (bound && waiting.size >= bound.maxWaiting) return reject(new SlotRefused('full'));
      const id = nextId++;
      let timer: NodeJS.Timeout | undefined;
      const leave = (reason: unknown) => {
        waiting.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        send({ board: 'slot', op: 'cancel', pool, id });
        reject(reason);
      };
      const onAbort = () => leave(signal!.reason);
      waiting.set(id, () => {
        waiting.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(id);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (bound) timer = setTimeout(() => leave(new SlotRefused('waited')), bound.maxWaitMs);
      send({ board: 'slot', op: 'acquire', pool, id });
    });

  const withSlot = async <T>(work: () => Promise<T>, signal?: AbortSignal, bound?: QueueBound): Promise<T> => {
    signal?.throwIfAborted();
    const id = await acquire(signal, bound);
    running++;
    try {
      signal?.throwIfAborted();
      return await work();
    } finally {
      running--;
      send({ board: 'slot', op: 'release', pool, id });
    }
  };
  return Object.assign(withSlot, { load: () => ({ running, waiting: waiting.size }) });
}

export interface SlotServer {
  pools: MachineSlots;
  handle(worker: Worker, message: SlotMessage): void;
  forget(worker: Worker): void;
  load(pool: SlotPool): { running: number; waiting: number; peak: number };
}

export function serveSlots(): SlotServer {
  const pools = new Map<SlotPool, { semaphore: Semaphore; peak: number }>();
  for (const pool of Object.keys(slotLimits) as SlotPool[])
    pools.set(pool, { semaphore: createSemaphore(slotLimits[pool]), peak: 0 });
  const held = new Map<Worker, Map<string, { release?: () => void; abort: AbortController }>>();

  const requestsOf = (worker: Worker) => {
    let requests = held.get(worker);
    if (!requests) held.set(worker, (requests = new Map()));
    return requests;
  };
  const finish = (worker: Worker, key: string) => {
    const request = held.get(worker)?.get(key);
    if (!request) return;
    held.get(worker)!.delete(key);
    if (request.release) request.release();
    else request.abort.abort();
  };

  return {
    pools: Object.fromEntries([...pools].map(([pool, { semaphore }]) => [pool, semaphore])) as MachineSlots,
    handle(worker, message) {
      const key = `${message.pool}:${message.id}`;
      if (message.op !== 'acquire') return finish(worker, key);
      const pool = pools.get(message.pool);
      if (!pool) return;
      const request: { release?: () => void; abort: AbortController } = { abort: new AbortController() };
      requestsOf(worker).set(key, request);
      pool
        .semaphore(
          () =>
            new Promise<void>((release) => {
              request.release = release;
              pool.peak = Math.max(pool.peak, pool.semaphore.load().running);
              if (worker.isConnected())
                worker.send({ board: 'slot', op: 'grant', pool: message.pool, id: message.id } satisfies SlotMessage);
              else finish(worker, key);
            }),
          request.abort.signal,
        )
        .catch(() => {});
    },
    forget(worker) {
      for (const key of [...(held.get(worker)?.keys() ?? [])]) finish(worker, key);
      held.delete(worker);
    },
    load(pool) {
      const { semaphore, peak } = pools.get(pool)!;
      return { ...semaphore.load(), peak };
    },
  };
}
