import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every temporary folder of the tests comes from here (test/unit/test-imports.test.ts holds them
 * to it), so each is removed when its test process ends, whether its tests passed or failed: a
 * test may remove its folder sooner, never later. `make test` runs the files with TMPDIR set to a
 * folder of the run's own and names whatever is left in it at the end.
 */

const made: string[] = [];

/** Removes every folder made so far: at the process's exit, and in `make test`'s lanes after each file (.ci/test-lane.ts). */
export function removeMadeFolders(): void {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
}
process.on('exit', removeMadeFolders);

/** A new empty temporary folder, removed when the test process ends at the latest. */
export function emptyFolder(prefix = 'board-test-'): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  made.push(folder);
  return folder;
}
