import { createSemaphore, type Semaphore } from './semaphore.ts';

/**
 * The machine's bounded pools: password hashing (each scrypt holds 128 MiB at the default cost),
 * image work (sharp) and search (lib/search/threads.ts). Why per machine: they protect memory and
 * cores, which N server processes share. One process uses its own semaphores; a cluster worker gets
 * slots the primary hands out over IPC (lib/process/cluster/slots-ipc.ts). `registration` is the
 * registrations' share of the hashers, held while one waits for and runs its hash. Why: a flood of
 * bot registrations filled the hashing line and members got 503 auth.busy at login; now a login
 * waits behind at most one registration's hash.
 */
export const slotLimits = { hash: 2, registration: 1, image: 2, search: 2 } as const;
export type SlotPool = keyof typeof slotLimits;

export type MachineSlots = Record<SlotPool, Semaphore>;

export function createMachineSlots(): MachineSlots {
  return {
    hash: createSemaphore(slotLimits.hash),
    registration: createSemaphore(slotLimits.registration),
    image: createSemaphore(slotLimits.image),
    search: createSemaphore(slotLimits.search),
  };
}
