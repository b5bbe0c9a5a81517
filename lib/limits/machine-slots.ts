import { createSemaphore, type Semaphore } from './semaphore.ts';

/**
 * The machine's bounded pools: password hashing (each scrypt holds 128 MiB at the default cost),
 * image work (sharp on libuv's threads) and search (the index's match on the search threads,
 * lib/search/threads.ts). Why per machine: the bound protects memory and cores, which N server
 * processes share, so N processes must not mean N times the work at once.
 * One process uses these semaphores directly; a cluster worker swaps in ones whose slots the
 * primary hands out over IPC (lib/process/cluster/slots-ipc.ts), with the same limits.
 */
export const slotLimits = { hash: 2, image: 2, search: 2 } as const;
export type SlotPool = keyof typeof slotLimits;

export const slots: Record<SlotPool, Semaphore> = {
  hash: createSemaphore(slotLimits.hash),
  image: createSemaphore(slotLimits.image),
  search: createSemaphore(slotLimits.search),
};

/** A cluster worker: take the slots from the primary from now on. */
export function useSlots(pools: Record<SlotPool, Semaphore>): void {
  Object.assign(slots, pools);
}
