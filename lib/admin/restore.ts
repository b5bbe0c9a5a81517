import Database from 'better-sqlite3';
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { runningServerPid } from '../pid-file.ts';
import { checkBackupFile } from './backup.ts';

/**
 * Puts a backup back: refuses while a server uses the data folder, checks the backup, keeps
 * the replaced database as board.db.before-restore-<time>, and swaps the file in by rename.
 */
export function restoreDatabase(config: Config, source: string, now: Date = new Date()): { keptAs?: string } {
  const pid = runningServerPid(config.dataDir);
  if (pid) throw new Error(`a server (pid ${pid}) is using ${config.dataDir}: stop it first`);
  const backup = resolve(source);
  checkBackupFile(backup);
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
