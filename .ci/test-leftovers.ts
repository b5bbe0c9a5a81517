import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `make test`'s last check: the run's files get a temporary folder of their own (TMPDIR), and
 * whatever the tests left in it is named here and fails the run, since every test removes what it
 * made, also when it fails (test/helpers/folders.ts). tsx's compile cache (`tsx-<uid>`) is the
 * one thing that may stay: it belongs to no test.
 */
export function leftoversIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => !/^tsx-\d+$/.test(name))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2]!;
  const left = leftoversIn(folder);
  if (left.length) {
    console.error(
      "make test: FAILED: left in the tests' temporary folder (each test removes what it makes, also when it fails):",
    );
    for (const name of left) console.error(`  ${name}`);
    process.exit(1);
  }
}
