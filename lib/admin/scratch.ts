import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../host/pid-file.ts';

/**
 * Temporary files of board-admin (a backup being written, a staged restore). Why this care: a
 * nightly cron job must not pile up debris. Each one is named `.<label>.<pid>-<random>.board-admin-tmp`
 * in the folder of its final file (so the last step is a rename), is removed when it is done with,
 * at exit and on SIGINT/SIGTERM; after a SIGKILL, which no process can catch, the next run
 * removes the files whose process is gone (removeStaleScratch).
 */
const suffix = '.board-admin-tmp';
const scratchName = /^\..*\.(\d+)-[0-9a-f]+\.board-admin-tmp(?:-journal|-wal|-shm)?$/;
/** What board-admin before this version left behind: `.<ms>.board-backup.tmp` and its -wal/-shm. */
const oldScratchName = /^\.(\d+)\.board-backup\.tmp(?:-journal|-wal|-shm)?$/;
const oldScratchAgeMs = 24 * 3600 * 1000;
const live = new Set<string>();

export function scratchPath(folder: string, label: string): string {
  watchSignals();
  const path = join(folder, `.${label}.${process.pid}-${randomBytes(4).toString('hex')}${suffix}`);
  live.add(path);
  return path;
}

export function removeScratch(path: string): void {
  for (const side of ['', '-journal', '-wal', '-shm']) rmSync(path + side, { recursive: true, force: true });
  live.delete(path);
}

export function releaseScratch(path: string): void {
  for (const side of ['-journal', '-wal', '-shm']) rmSync(path + side, { force: true });
  live.delete(path);
}

export function removeStaleScratch(folder: string, nowMs = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const stale = names.filter((name) => {
    const pid = scratchName.exec(name)?.[1];
    if (pid) return Number(pid) !== process.pid && !processAlive(Number(pid));
    const made = oldScratchName.exec(name)?.[1];
    return made !== undefined && nowMs - Number(made) > oldScratchAgeMs && isFile(join(folder, name));
  });
  for (const name of stale) rmSync(join(folder, name), { recursive: true, force: true });
  return stale;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

let watching = false;

function watchSignals(): void {
  if (watching) return;
  watching = true;
  const removeAll = () => [...live].forEach(removeScratch);
  process.on('exit', removeAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      removeAll();
      process.stderr.write(`board-admin: ${signal}: stopped, temporary files removed\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}
