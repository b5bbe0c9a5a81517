import { accessSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, type Config } from '../config.ts';

/**
 * `mkdir -p` that always ends: creates each missing level once, from the first existing ancestor
 * down, and throws the first failure. Why not `mkdirSync(path, {recursive})`: under a parent where
 * mkdir answers ENOENT (`/proc/nope`) it retries forever. `mode` applies to the folders it creates.
 */
export function makeFolders(path: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let folder = resolve(path); !existsSync(folder); folder = dirname(folder)) {
    missing.unshift(folder);
    if (dirname(folder) === folder) break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Creates the data folders and checks they are writable, so a bad BOARD_DATA fails at start-up.
 * A folder made here is the owner's only (uploads of deleted entries must not be readable by others).
 */
export function prepareDataDir(config: Config): void {
  try {
    makeFolders(config.mediaDir, 0o700);
    accessSync(config.dataDir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new ConfigError(`BOARD_DATA: cannot use ${config.dataDir} (${(err as Error).message})`);
  }
}

/** Syncs a folder, so a rename in it survives a power cut; a file system that cannot is not worth failing a write over. */
export function syncFolder(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } catch {
  } finally {
    closeSync(fd);
  }
}
