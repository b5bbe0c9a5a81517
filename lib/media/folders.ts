import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` that always ends: creates each missing level once, from the first existing
 * ancestor down, and throws the first failure. Why not Node's `mkdirSync(path, {recursive})`:
 * where mkdir answers ENOENT under a parent that exists (`/proc/nope`), Node's version retries
 * the parent and the child forever at 100 % CPU. `mode` applies to the folders it creates.
 */
export function makeFolders(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let folder = resolve(path); !existsSync(folder); folder = dirname(folder)) {
    missing.unshift(folder);
    if (dirname(folder) === folder) break; // the root itself is missing: let mkdir say why
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
