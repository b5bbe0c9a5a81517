import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `make test`'s last check: the run's files get a temporary folder of their own (TMPDIR), and
 * whatever the tests left in it is named here and fails the run, since every test removes what it
 * made, also when it fails (test/helpers/folders.ts). The compile caches of tsx (`tsx-<uid>`) and
 * of board-admin's Node (`node-compile-cache`) may stay: they belong to no test.
 */
export function leftoversIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => !/^tsx-\d+$/.test(name) && name !== 'node-compile-cache')
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
