import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { schemaVersion } from '../schema.ts';
import { readArchive, streamToFile } from './archive.ts';
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
 * refers to present (inside an archive; for a plain database file, in BOARD_DATA/media).
 * An archive's database is unpacked into a scratch file under the system's temporary folder.
 */
export async function verifyBackup(config: Config, source: string): Promise<Verification> {
  const backup = resolve(source);
  const info = statOrUndefined(backup);
  if (!info) return { problems: ['file not found'], facts: [] };
  if (!info.isFile()) return { problems: ['not a file'], facts: [] };
  const kind = backupKind(backup);
  if (kind === 'other') return { problems: ['neither a board database nor a backup --with-media archive'], facts: [] };
  if (kind === 'database') return checkDatabaseWithMedia(backup, config.mediaDir);

  removeStaleScratch(tmpdir());
  const database = scratchPath(tmpdir(), 'board-verify.db');
  const media = new Set<string>();
  try {
    await readArchive(backup, async (entry, stream) => {
      if (entry.kind === 'database') return streamToFile(stream, database, 0o600);
      media.add(entry.path);
      return drain(stream);
    });
    return checkDatabaseWithMedia(database, undefined, media);
  } catch (err) {
    return { problems: [(err as Error).message.replaceAll(database, 'its database')], facts: ['archive'] };
  } finally {
    removeScratch(database);
  }
}

/** The database checks, then the media check against a folder or an archive's list of files. */
function checkDatabaseWithMedia(database: string, mediaDir: string | undefined, inArchive?: ReadonlySet<string>): Verification {
  let found;
  try {
    found = checkBackupFile(database);
  } catch (err) {
    return { problems: [(err as Error).message.replaceAll(database, 'the database')], facts: [] };
  }
  const facts = [inArchive ? 'archive' : 'database', `schema ${found.schema} (this code: ${schemaVersion})`, 'integrity ok', `${found.entries} entries`, `${found.users} users`];
  const referenced = mediaReferencedBy(database);
  if (inArchive) {
    const missing = referenced.filter((path) => !inArchive.has(path));
    facts.push(`${referenced.length - missing.length} of ${referenced.length} media files in the archive`);
    return { problems: missing.length ? [`${missing.length} media files missing from the archive${sample(missing)}`] : [], facts };
  }
  if (referenced.length && !existsSync(mediaDir!)) {
    return { problems: [`${mediaDir} does not exist: ${referenced.length} media files not found${sample(referenced)}`], facts };
  }
  const missing = referenced.filter((path) => !existsSync(join(mediaDir!, path)));
  facts.push(`${referenced.length - missing.length} of ${referenced.length} media files in ${mediaDir}`);
  return { problems: missing.length ? [`${missing.length} media files missing from ${mediaDir}${sample(missing)}`] : [], facts };
}

function sample(paths: string[]): string {
  return ` (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`;
}

function drain(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.resume();
  });
}
