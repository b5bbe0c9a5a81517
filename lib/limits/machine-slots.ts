import { createSemaphore, type Semaphore } from './semaphore.ts';

/**
 * The machine's bounded pools: password hashing (each scrypt holds 128 MiB at the default cost),
 * image work (sharp on libuv's threads) and search (the index's match on the search threads,
 * lib/search/threads.ts). Why per machine: the bound protects memory and cores, which N server
 * processes share, so N processes must not mean N times the work at once.
 * One process uses its own semaphores (createMachineSlots); a cluster worker gets ones whose slots
 * the primary hands out over IPC (lib/process/cluster/slots-ipc.ts), with the same limits, and the
 * primary's own image work takes from the same pools it serves.
 */
export const slotLimits = { hash: 2, image: 2, search: 2 } as const;
export type SlotPool = keyof typeof slotLimits;

/** The pools one process works with, built by createApp (or the cluster's primary) and passed to what uses them. */
export type MachineSlots = Record<SlotPool, Semaphore>;

/** Pools of this process's own: the whole machine's when it runs alone, a tool's (board-admin) otherwise. */
export function createMachineSlots(): MachineSlots {
  return {
    hash: createSemaphore(slotLimits.hash),
    image: createSemaphore(slotLimits.image),
    search: createSemaphore(slotLimits.search),
  };
}
