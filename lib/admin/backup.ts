import Database from 'better-sqlite3';
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { runningServerPid } from '../pid-file.ts';
import { schemaVersion } from '../schema.ts';

/**
 * A consistent copy of the live database through SQLite's online backup API: safe while the
 * server runs and writes. Media files are plain files; copy them with rsync (README).
 */
export async function backupDatabase(config: Config, target: string): Promise<{ pages: number }> {
  const destination = resolve(target);
  if (destination === config.dbPath) throw new Error('the backup file must not be the live database');
  if (!existsSync(config.dbPath)) throw new Error(`no database at ${config.dbPath}`);
  const temporary = join(dirname(destination), `.${Date.now()}.board-backup.tmp`);
  const db = new Database(config.dbPath, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const { totalPages } = await db.backup(temporary);
    checkDatabase(temporary);
    renameSync(temporary, destination);
    return { pages: totalPages };
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  } finally {
    db.close();
  }
}

/** Opens a database file read-only and checks it is whole and not newer than this code. */
export function checkDatabase(path: string): void {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${path} fails the integrity check: ${String(integrity)}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > schemaVersion) throw new Error(`${path} has schema ${version}, newer than this code (${schemaVersion})`);
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'entries'").get()) throw new Error(`${path} is not a board database`);
  } finally {
    db.close();
  }
}

/**
 * Puts a backup back: refuses while a server uses the data folder, checks the backup, keeps
 * the replaced database as board.db.before-restore-<time>, and swaps the file in by rename.
 */
export function restoreDatabase(config: Config, source: string, now: Date = new Date()): { keptAs?: string } {
  const pid = runningServerPid(config.dataDir);
  if (pid) throw new Error(`a server (pid ${pid}) is using ${config.dataDir}: stop it first`);
  const backup = resolve(source);
  checkDatabase(backup);
  const incoming = `${config.dbPath}.restore-tmp`;
  copyFileSync(backup, incoming);
  let keptAs: string | undefined;
  if (existsSync(config.dbPath)) {
    // Fold the WAL into the old file first, so the kept copy is complete on its own.
    const old = new Database(config.dbPath);
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.close();
    keptAs = `${config.dbPath}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(config.dbPath, keptAs);
  }
  rmSync(`${config.dbPath}-wal`, { force: true });
  rmSync(`${config.dbPath}-shm`, { force: true });
  renameSync(incoming, config.dbPath);
  return { keptAs };
}
