import Database from 'better-sqlite3';
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { Config } from '../config.ts';
import { makeFolders } from '../host/folders.ts';
import { runningServerPid } from '../host/pid-file.ts';
import { archiveDbName, checkRoom, readArchive, streamToFile } from './archive.ts';
import { backupKind, checkBackupFile, mediaReferencedBy, statOrUndefined } from './backup.ts';
import { removeScratch, removeStaleScratch, scratchPath } from './scratch.ts';

export interface RestoreResult {
  kind: 'database' | 'archive';
  keptAs?: string;
  mediaRestored: number;
  missing: string[];
}

/**
 * `board-admin restore <file>`: puts a database backup or a --with-media archive back. Refuses
 * while a server uses the data folder; checks everything in a scratch folder first, so a bad or
 * hostile file changes nothing; then moves the media in, keeps the replaced database and renames
 * the new one in.
 */
export async function restoreBackup(config: Config, source: string, now: Date = new Date()): Promise<RestoreResult> {
  const backup = resolve(source);
  const info = statOrUndefined(backup);
  if (!info) throw new Error(`${backup}: file not found`);
  if (!info.isFile()) throw new Error(`${backup} is not a file`);
  const pid = runningServerPid(config.dataDir);
  if (pid) throw new Error(`a server (pid ${pid}) is using ${config.dataDir}: stop it first`);
  const kind = backupKind(backup);
  if (kind === 'other') throw new Error(`${backup} is neither a board database nor a backup --with-media archive`);

  makeFolders(config.dataDir, 0o700); // restoring into a new, empty BOARD_DATA is how a lost machine comes back
  removeStaleScratch(config.dataDir);
  const stage = scratchPath(config.dataDir, 'restore');
  mkdirSync(stage, { mode: 0o700 });
  try {
    const database = join(stage, archiveDbName);
    let media: string[] = [];
    if (kind === 'archive') {
      media = await unpack(backup, stage, database);
    } else {
      copyFileSync(backup, database);
      chmodSync(database, 0o600); // a copy gets its source's mode; the board's database is the owner's only
      checkBackupFile(database);
    }
    const mediaRestored = moveMedia(join(stage, 'media'), config.mediaDir, media);
    const keptAs = swapDatabase(config, database, now);
    const missing = mediaReferencedBy(config.dbPath).filter((path) => !existsSync(join(config.mediaDir, path)));
    return { kind, keptAs, mediaRestored, missing };
  } finally {
    removeScratch(stage);
  }
}

async function unpack(archive: string, stage: string, database: string): Promise<string[]> {
  const media: string[] = [];
  await readArchive(archive, {
    async database(stream, size) {
      checkRoom(dirname(stage), size, `the archive's ${archiveDbName}`);
      await streamToFile(stream, database);
      checkBackupFile(database);
      return new Set(mediaReferencedBy(database));
    },
    async media(path, stream, size) {
      const file = join(stage, 'media', path);
      if (!resolve(file).startsWith(stage + sep))
        throw new Error(`the archive entry for ${file} leaves the restore folder`);
      checkRoom(dirname(stage), size, `media/${path}`);
      makeFolders(dirname(file), 0o700);
      await streamToFile(stream, file);
      media.push(path);
    },
  });
  return media;
}

function moveMedia(from: string, mediaDir: string, paths: readonly string[]): number {
  let moved = 0;
  for (const path of paths) {
    const target = join(mediaDir, path);
    if (!target.startsWith(mediaDir + sep) || existsSync(target)) continue;
    makeFolders(dirname(target), 0o700);
    renameSync(join(from, path), target);
    moved++;
  }
  return moved;
}

function swapDatabase(config: Config, incoming: string, now: Date): string | undefined {
  let keptAs: string | undefined;
  if (existsSync(config.dbPath)) {
    keptAs = `${config.dbPath}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    try {
      const old = new Database(config.dbPath);
      old.pragma('wal_checkpoint(TRUNCATE)');
      old.close();
    } catch {
      // A damaged database (often the reason for a restore) is kept as it is, its WAL beside it.
      if (existsSync(`${config.dbPath}-wal`)) renameSync(`${config.dbPath}-wal`, `${keptAs}-wal`);
    }
    renameSync(config.dbPath, keptAs);
  }
  rmSync(`${config.dbPath}-wal`, { force: true });
  rmSync(`${config.dbPath}-shm`, { force: true });
  renameSync(incoming, config.dbPath);
  return keptAs;
}
