import { isDiskFull } from '../host/disk-watch.ts';
import { syncFolder } from '../host/folders.ts';
import Database from 'better-sqlite3';
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { createMediaHold, dropMediaHold, emptyHeldMedia } from '../media/hold.ts';
import { referencedMediaSql } from '../media/files.ts';
import { schemaVersion } from '../db/schema.ts';
import { archiveDbName, writeArchive, type WriteResult } from './archive.ts';
import { releaseScratch, removeScratch, removeStaleScratch, scratchPath } from './scratch.ts';

export interface BackupOptions {
  force: boolean;
  note: (line: string) => void;
}

/**
 * `board-admin backup <file>`: a consistent copy of the live database through SQLite's online
 * backup API, safe while the server writes: one self-contained file (rollback journal, no side
 * files), checked before it is renamed into place; a killed run leaves nothing behind
 * (lib/admin/scratch.ts).
 */
export async function backupDatabase(
  config: Config,
  target: string,
  options: BackupOptions,
): Promise<{ pages: number; destination: string }> {
  const destination = checkedTarget(config, target, options);
  const temporary = createScratchFile(destination);
  try {
    const pages = await copyDatabase(config.dbPath, temporary);
    placeFile(temporary, destination, options.force);
    return { pages, destination };
  } catch (err) {
    throw diskFull(err, dirname(destination));
  } finally {
    removeScratch(temporary);
  }
}

/**
 * `board-admin backup --with-media <file>`: one tar archive with a database copy and every media
 * file it refers to. Safe while the server runs: the media list comes from the snapshot, and the
 * media hold keeps each file the server removes meanwhile until the archive is written
 * (lib/media/hold.ts).
 */
export async function backupWithMedia(
  config: Config,
  target: string,
  options: BackupOptions,
): Promise<{ pages: number; destination: string } & WriteResult> {
  const destination = checkedTarget(config, target, options);
  const archive = createScratchFile(destination);
  const database = createScratchFile(join(dirname(destination), archiveDbName));
  // Before the snapshot: the server removes a file only after committing the row change that
  // dropped it, so every file the snapshot refers to is removed, if at all, under this hold.
  const hold = createMediaHold(config.mediaDir);
  const drop = () => dropMediaHold(hold);
  process.on('exit', drop); // Ctrl-C and SIGTERM end through process.exit (lib/admin/scratch.ts)
  try {
    const pages = await copyDatabase(config.dbPath, database);
    const written = await writeArchive(archive, database, config.mediaDir, mediaReferencedBy(database), options.note);
    placeFile(archive, destination, options.force);
    return { pages, destination, ...written };
  } catch (err) {
    throw diskFull(err, dirname(destination));
  } finally {
    removeScratch(database);
    removeScratch(archive);
    process.off('exit', drop);
    drop();
    await emptyHeldMedia(config.mediaDir).catch((err: Error) =>
      options.note(`board-admin: could not empty ${config.mediaDir}/.held: ${err.message}`),
    );
  }
}

export function checkedTarget(config: Config, target: string, options: BackupOptions): string {
  const destination = resolve(target);
  if (destination === config.dbPath) throw new Error('the backup file must not be the live database');
  const folder = dirname(destination);
  const info = statOrUndefined(folder);
  if (!info) throw new Error(`folder ${folder} does not exist`);
  if (!info.isDirectory()) throw new Error(`${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new Error(`cannot write in ${folder} (permission denied)`);
  }
  const existing = statOrUndefined(destination);
  if (existing?.isDirectory()) throw new Error(`${destination} is a folder`);
  if (existing && !options.force) throw new Error(`${destination} already exists; add --force to replace it`);
  const stale = removeStaleScratch(folder);
  if (stale.length)
    options.note(`board-admin: removed ${stale.length} temporary files of an earlier, interrupted run from ${folder}`);
  return destination;
}

function diskFull(err: unknown, folder: string): unknown {
  return isDiskFull(err) ? new Error(`no space left in ${folder} (ENOSPC)`) : err;
}

/**
 * Creates the empty scratch file a backup is written into, beside its destination. Only its owner
 * may read it: a backup holds password hashes. Access checks can say yes to root where a write
 * still fails (/sys), so this is where an unwritable folder shows.
 */
export function createScratchFile(destination: string): string {
  const folder = dirname(destination);
  const temporary = scratchPath(folder, basename(destination));
  try {
    closeSync(openSync(temporary, 'wx', 0o600));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new Error(`cannot write in ${folder} (${code})`);
    throw err;
  }
  return temporary;
}

/**
 * Copies the database at `source` into the new file `target` as one snapshot (a single backup
 * step: a step-by-step copy restarts whenever the server writes, and might never end under
 * load), turns it into a self-contained rollback-journal file and checks it. Returns its pages.
 */
export async function copyDatabase(source: string, target: string): Promise<number> {
  const db = new Database(source, { fileMustExist: true });
  let pages: number;
  try {
    db.pragma('busy_timeout = 5000');
    pages = (await db.backup(target, { progress: () => 0x7fffffff })).totalPages;
  } finally {
    db.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE'); // the header said WAL, copied from the live file
  } finally {
    copy.close();
  }
  checkBackupFile(target);
  return pages;
}

/**
 * What a backup holds, each count with the part GET /api/stats counts (its counters follow the same
 * rules on every write): live entries (neither deleted by their author nor removed by a
 * moderator), and admitted accounts (neither applying in approval mode nor rejected).
 */
export interface BackupCounts {
  schema: number;
  entries: { all: number; live: number };
  users: { all: number; admitted: number };
}

export function checkBackupFile(path: string): BackupCounts {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${path} fails the integrity check: ${oneLine(String(integrity))}`);
    const schema = db.pragma('user_version', { simple: true }) as number;
    if (schema > schemaVersion)
      throw new Error(`${path} has schema ${schema}, newer than this code (${schemaVersion})`);
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'entries'").get())
      throw new Error(`${path} is not a board database`);
    const count = (sql: string) => db.prepare(sql).get() as { all: number; part: number };
    const entries = count('SELECT count(*) AS "all", coalesce(sum(deleted = 0), 0) AS part FROM entries');
    // Applications came with schema 15; an older board admitted every account it had.
    const hasStatus = db.prepare("SELECT 1 FROM pragma_table_info('users') WHERE name = 'status'").get();
    const users = count(
      `SELECT count(*) AS "all", ${hasStatus ? "coalesce(sum(status = ''), 0)" : 'count(*)'} AS part FROM users`,
    );
    return {
      schema,
      entries: { all: entries.all, live: entries.part },
      users: { all: users.all, admitted: users.part },
    };
  } catch (err) {
    if (err instanceof Database.SqliteError) throw new Error(`${path} is not a board database (${err.message})`);
    throw err;
  } finally {
    db.close();
  }
}

export function mediaReferencedBy(path: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(referencedMediaSql).all() as { path: string }[]).map((r) => r.path).sort();
  } finally {
    db.close();
  }
}

export function backupKind(path: string): 'database' | 'archive' | 'other' {
  const head = Buffer.alloc(512);
  const fd = openSync(path, 'r');
  let length: number;
  try {
    length = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (length >= 16 && head.subarray(0, 16).toString('latin1') === 'SQLite format 3\0') return 'database';
  if (length === 512 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'archive';
  return 'other';
}

/**
 * Makes a finished temporary file the backup: synced to disk, then linked into place (fails if
 * another file appeared there meanwhile) or, with force, renamed over the old one; then the
 * folder is synced so the new name survives a power cut.
 */
export function placeFile(temporary: string, destination: string, force: boolean): void {
  const fd = openSync(temporary, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (force) {
    renameSync(temporary, destination);
  } else {
    try {
      linkSync(temporary, destination);
      unlinkSync(temporary);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new Error(`${destination} already exists; add --force to replace it`);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
      // A file system without hard links: check, then rename (a small race instead of none).
      if (statOrUndefined(destination)) throw new Error(`${destination} already exists; add --force to replace it`);
      renameSync(temporary, destination);
    }
  }
  releaseScratch(temporary);
  syncFolder(dirname(destination));
}

function oneLine(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' / ');
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

export function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
