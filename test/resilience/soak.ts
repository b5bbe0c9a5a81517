import { appendFileSync } from 'node:fs';

/**
 * The resilience tests run short in `make test` and long in `make soak` (SOAK=1). Every count
 * and duration goes through scaled(), so both runs exercise the same code.
 */
export const soak = process.env.SOAK === '1';

/** The short value in `make test`, the long one under `make soak`. */
export function scaled<T>(short: T, long: T): T {
  return soak ? long : short;
}

/** The seed of every random choice in these tests: SOAK_SEED to replay a run, else a fixed one. */
export const seed = Number(process.env.SOAK_SEED ?? 20261121);

export { prng } from '../helpers/prng.ts';

/** Helpers over one generator: integers, picks, chances. */
export function randomTools(random: () => number) {
  return {
    random,
    int: (min: number, max: number) => min + Math.floor(random() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!,
    chance: (p: number) => random() < p,
  };
}

/**
 * Adds to the soak summary (test/resilience/summary.ts prints it): `make soak` sets SOAK_SUMMARY
 * to a file, each test file appends its counts as JSON lines.
 */
export function recordSummary(counts: Record<string, number>): void {
  const file = process.env.SOAK_SUMMARY;
  if (file) appendFileSync(file, `${JSON.stringify(counts)}\n`);
}
