import type { MachineSlots, SlotPool } from '../../lib/host/machine-slots.ts';
import type { Semaphore } from '../../lib/host/semaphore.ts';
import { hangBoundMs } from './hang-bound.ts';

/**
 * The machine's slots (lib/host/machine-slots.ts) with a gate inside them: while `holding(pool)`
 * is on, every job of that pool, once its work is done, keeps its slot until `releaseAll()`, so a
 * test fills a line without depending on how fast the machine hashes. `slots` wraps the board's own
 * (createApp's AppOptions.slots). `started` counts the jobs that got a slot; `load` is the real line.
 * A line's real-time bound (a job that waited 5 s is refused) would make what the test sees depend
 * on the machine's speed, so behind the gate a job waits up to the hang bound; the bound's own rule
 * is proven in test/unit/semaphore.test.ts.
 */
export function slotGate(): {
  slots: (slots: MachineSlots) => MachineSlots;
  holding(pool: SlotPool, on: boolean): void;
  started(pool: SlotPool): number;
  load(pool: SlotPool): { running: number; waiting: number };
  releaseAll(): void;
} {
  const holds = new Set<SlotPool>();
  const started = new Map<SlotPool, number>();
  const releases = new Set<() => void>();
  let real: MachineSlots | undefined;
  const gated = (pool: SlotPool, semaphore: Semaphore): Semaphore =>
    Object.assign(
      <T>(work: () => Promise<T>, signal?: AbortSignal, bound?: Parameters<Semaphore>[2]) =>
        semaphore(
          async () => {
            started.set(pool, (started.get(pool) ?? 0) + 1);
            const result = await work();
            if (holds.has(pool)) await new Promise<void>((release) => releases.add(release));
            return result;
          },
          signal,
          bound && { ...bound, maxWaitMs: hangBoundMs },
        ),
      { load: () => semaphore.load() },
    );
  return {
    slots(slots) {
      real = slots;
      return Object.fromEntries(
        Object.entries(slots).map(([pool, semaphore]) => [pool, gated(pool as SlotPool, semaphore)]),
      ) as MachineSlots;
    },
    holding(pool, on) {
      if (on) holds.add(pool);
      else holds.delete(pool);
    },
    started: (pool) => started.get(pool) ?? 0,
    load: (pool) => real![pool].load(),
    /** After each test too, so that a failed one leaves no job holding a slot. */
    releaseAll() {
      holds.clear();
      for (const release of releases) release();
      releases.clear();
    },
  };
}
