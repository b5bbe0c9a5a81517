import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { schemaVersion } from '../db/schema.ts';
import { archiveDbName, checkRoom, readArchive, streamToFile } from './archive.ts';
import { backupKind, checkBackupFile, mediaReferencedBy, statOrUndefined } from './backup.ts';
import { removeScratch, removeStaleScratch, scratchPath } from './scratch.ts';

/** What `board-admin verify` found: problems (none: the backup is good) and the facts for the summary line. */
export interface Verification {
  problems: string[];
  facts: string[];
}

/**
 * `board-admin verify <file>`: checks a backup without touching the live board: integrity
 * check, a board database, a schema this code can open, and every media file the database
 * refers to present (inside an archive; for a plain database file, in BOARD_DATA/media). An
 * archive must also hold nothing a restore would refuse (lib/admin/archive.ts): verify says no
 * to exactly what restore says no to. An archive's database is unpacked into a scratch file
 * under the system's temporary folder.
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
 * `board-admin verify --data`: the board in BOARD_DATA itself, as a restore leaves it or while it
 * runs: the same checks as for a database file, its media looked for in BOARD_DATA/media. Safe
 * beside a running server (SQLite reads a consistent snapshot of a live database in WAL mode);
 * a file that seems missing is looked up once more against a fresh read of the rows, so one the
 * server removed meanwhile, with its row's reference, is no problem.
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

/** A database file, its media looked for in BOARD_DATA/media. */
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

/** An archive, read as restore reads it: its database checked first, then every media file against it. */
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

/** The database checks (they throw on a problem) as the summary line's facts. */
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
