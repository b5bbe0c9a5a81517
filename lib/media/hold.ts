import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { processAlive } from '../host/pid-file.ts';

/**
 * The media hold of `board-admin backup --with-media`. Why: the backup copies the database, then
 * the files it refers to, and a file the server removed meanwhile would be missing from the
 * restored board. So while a backup holds the media, removeMedia moves files into
 * `media/.held/<same path>` (a rename: gone from its public path at once) and the backup takes them
 * from there. A hold made before the snapshot covers every file it refers to, since the server
 * removes a file only after committing the row change that drops it, and looks for holds only then.
 * A hold is `media/.hold/<pid>`; it counts while its process lives and at most holdMaxAgeMs, so a
 * killed backup never keeps files for ever. The media route never serves either folder.
 */
export const holdFolder = '.hold';
export const heldFolder = '.held';
/** Longer than any backup should take; a hold older than this no longer defers removals. */
export const holdMaxAgeMs = 12 * 3600_000;

/** Creates this process's hold before the backup's snapshot; returns its path. Sync: no signal comes between it and its clean-up hook. */
export function createMediaHold(mediaDir: string, nowMs = Date.now()): string {
  const path = join(mediaDir, holdFolder, String(process.pid));
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${process.pid} ${new Date(nowMs).toISOString()}\n`, { mode: 0o600 });
  return path;
}

export function dropMediaHold(path: string): void {
  rmSync(path, { force: true });
}

export async function mediaHeld(mediaDir: string, nowMs = Date.now()): Promise<boolean> {
  const folder = join(mediaDir, holdFolder);
  const names = await readdir(folder).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  let held = false;
  for (const name of names) {
    const info = await stat(join(folder, name)).catch(() => undefined);
    if (!info) continue;
    const pid = /^\d+$/.test(name) ? Number(name) : 0;
    if (pid > 0 && processAlive(pid) && nowMs - info.mtimeMs < holdMaxAgeMs) held = true;
    else await rm(join(folder, name), { force: true, recursive: true });
  }
  return held;
}

/**
 * Moves a media file into the held folder (a missing file is no error). Why the fallback: a file
 * that cannot be moved is deleted after all, since a removed image must leave its public path.
 */
export async function holdMediaFile(mediaDir: string, relative: string): Promise<void> {
  const full = join(mediaDir, relative);
  const target = join(mediaDir, heldFolder, relative);
  try {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rename(full, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') await rm(full, { force: true });
  }
}

export function heldPath(mediaDir: string, relative: string): string {
  return join(mediaDir, heldFolder, relative);
}

/**
 * Deletes the held files once no hold remains; returns how many. Only files moved there before the
 * check began go (by ctime, with a margin for the kernel's coarse clock), so a backup whose hold
 * came just after the check keeps what it needs.
 */
export async function emptyHeldMedia(mediaDir: string, nowMs = Date.now()): Promise<number> {
  const checkedAt = Date.now() - 50;
  if (await mediaHeld(mediaDir, nowMs)) return 0;
  const root = join(mediaDir, heldFolder);
  const list = (folder: string) => readdir(folder).catch(() => [] as string[]);
  let removed = 0;
  for (const folder of await list(root)) {
    for (const name of await list(join(root, folder))) {
      const file = join(root, folder, name);
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile() || info.ctimeMs >= checkedAt) continue;
      await rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}
