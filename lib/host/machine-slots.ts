import { createSemaphore, type Semaphore } from './semaphore.ts';

/**
 * The machine's bounded pools: password hashing (each scrypt holds 128 MiB at the default cost),
 * image work (sharp on libuv's threads) and search (the index's match on the search threads,
 * lib/search/threads.ts). Why per machine: the bound protects memory and cores, which N server
 * processes share, so N processes must not mean N times the work at once.
 * One process uses its own semaphores (createMachineSlots); a cluster worker gets ones whose slots
 * the primary hands out over IPC (lib/process/cluster/slots-ipc.ts), with the same limits, and the
 * primary's own image work takes from the same pools it serves.
 * `registration`: registrations' share of the two hashers. A registration holds this slot while
 * it waits for and runs its hash, so at most one registration is in the hashing line at a time.
 * Why: a flood of bot registrations filled the whole line and members got 503 auth.busy at login
 * (bench/results.md "Bots against the registration modes"); now a login waits behind at most one
 * registration's hash, and registrations wait in a line of their own (registrationQueueBound in
 * lib/accounts/passwords.ts).
 */
export const slotLimits = { hash: 2, registration: 1, image: 2, search: 2 } as const;
export type SlotPool = keyof typeof slotLimits;

/** The pools one process works with, built by createApp (or the cluster's primary) and passed to what uses them. */
export type MachineSlots = Record<SlotPool, Semaphore>;

/** Pools of this process's own: the whole machine's when it runs alone, a tool's (board-admin) otherwise. */
export function createMachineSlots(): MachineSlots {
  return {
    hash: createSemaphore(slotLimits.hash),
    registration: createSemaphore(slotLimits.registration),
    image: createSemaphore(slotLimits.image),
    search: createSemaphore(slotLimits.search),
  };
}
