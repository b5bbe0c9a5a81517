import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { schemaVersion } from '../db/schema.ts';
import { archiveDbName, checkRoom, readArchive, streamToFile } from './archive.ts';
import { backupKind, checkBackupFile, mediaReferencedBy, statOrUndefined } from './backup.ts';
import { removeScratch, removeStaleScratch, scratchPath } from './scratch.ts';

export interface Verification {
  problems: string[];
  facts: string[];
}

/**
 * `board-admin verify <file>`: checks a backup without touching the live board: integrity, a board
 * database, a schema this code can open, every media file it refers to present (in the archive, or
 * in BOARD_DATA/media), and nothing a restore would refuse: verify says no to exactly what restore
 * does.
 */
export async function verifyBackup(config: Config, source: string): Promise<Verification> {
  const backup = resolve(source);
  const info = statOrUndefined(backup);
  if (!info) return { problems: ['file not found'], facts: [] };
  if (!info.isFile()) return { problems: ['not a file'], facts: [] };
  const kind = backupKind(backup);
  if (kind === 'other') return { problems: ['neither a board database nor a backup --with-media archive'], facts: [] };
  return kind === 'database' ? verifyDatabase(backup, config.mediaDir) : verifyArchive(backup);
}

/**
 * `board-admin verify --data`: the same checks for the board in BOARD_DATA itself, safe beside a
 * running server (SQLite reads a consistent snapshot); a file that seems missing is looked up again
 * against a fresh read of the rows, so one the server removed meanwhile is no problem.
 */
export function verifyDataFolder(config: Config): Verification {
  if (!existsSync(config.dbPath)) return { problems: [`${config.dbPath} does not exist`], facts: [] };
  const found = verifyDatabase(config.dbPath, config.mediaDir, 'data folder');
  if (!found.problems.length) return found;
  const referenced = new Set(mediaReferencedBy(config.dbPath));
  const missing = found.missing.filter((path) => referenced.has(path) && !existsSync(join(config.mediaDir, path)));
  const facts = found.facts.map((fact) =>
    fact.endsWith(` media files in ${config.mediaDir}`)
      ? `${referenced.size - missing.length} of ${referenced.size} media files in ${config.mediaDir}`
      : fact,
  );
  return {
    problems: missing.length ? [`${missing.length} media files missing from ${config.mediaDir}${sample(missing)}`] : [],
    facts,
  };
}

function verifyDatabase(
  database: string,
  mediaDir: string,
  kind: 'database' | 'data folder' = 'database',
): Verification & { missing: string[] } {
  let facts: string[];
  try {
    facts = databaseFacts(kind, database);
  } catch (err) {
    return { problems: [(err as Error).message.replaceAll(database, 'the database')], facts: [], missing: [] };
  }
  const referenced = mediaReferencedBy(database);
  if (referenced.length && !existsSync(mediaDir)) {
    return {
      problems: [`${mediaDir} does not exist: ${referenced.length} media files not found${sample(referenced)}`],
      facts,
      missing: referenced,
    };
  }
  const missing = referenced.filter((path) => !existsSync(join(mediaDir, path)));
  facts.push(`${referenced.length - missing.length} of ${referenced.length} media files in ${mediaDir}`);
  return {
    problems: missing.length ? [`${missing.length} media files missing from ${mediaDir}${sample(missing)}`] : [],
    facts,
    missing,
  };
}

async function verifyArchive(backup: string): Promise<Verification> {
  removeStaleScratch(tmpdir());
  const database = scratchPath(tmpdir(), 'board-verify.db');
  const inArchive = new Set<string>();
  let facts = ['archive'];
  let referenced: string[] = [];
  try {
    await readArchive(backup, {
      async database(stream, size) {
        checkRoom(tmpdir(), size, `its ${archiveDbName}`);
        await streamToFile(stream, database);
        facts = databaseFacts('archive', database);
        referenced = mediaReferencedBy(database);
        return new Set(referenced);
      },
      async media(path, stream) {
        await drain(stream);
        inArchive.add(path);
      },
    });
  } catch (err) {
    return { problems: [(err as Error).message.replaceAll(database, 'its database')], facts };
  } finally {
    removeScratch(database);
  }
  const missing = referenced.filter((path) => !inArchive.has(path));
  facts.push(`${referenced.length - missing.length} of ${referenced.length} media files in the archive`);
  return {
    problems: missing.length ? [`${missing.length} media files missing from the archive${sample(missing)}`] : [],
    facts,
  };
}

function databaseFacts(kind: 'archive' | 'database' | 'data folder', database: string): string[] {
  const found = checkBackupFile(database);
  return [
    kind,
    `schema ${found.schema} (this code: ${schemaVersion})`,
    'integrity ok',
    `${found.entries.all} entries (${found.entries.live} live, ${found.entries.all - found.entries.live} deleted or removed)`,
    `${found.users.all} users (${found.users.admitted} admitted, ${found.users.all - found.users.admitted} applying or rejected)`,
  ];
}

function sample(paths: string[]): string {
  return ` (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`;
}

async function drain(stream: Readable): Promise<void> {
  for await (const _ of stream); // reading is what checks the bytes
}
