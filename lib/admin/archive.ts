import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { extract, pack, type Pack } from 'tar-stream';
import { heldPath } from '../media-hold.ts';

/**
 * The `backup --with-media` archive: a plain tar file (`tar -tf` lists it) holding `board.db`
 * first, then `media/<folder>/<name>` for every media file the database refers to. Written and
 * read as a stream, so neither the database nor the media have to fit in memory.
 */
export const archiveDbName = 'board.db';

/** A media path as the board writes them (`e/3f9a….jpg`): one folder, one plain name, no dots in front. */
const mediaPath = /^[a-z][a-z0-9_-]{0,31}\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,200}$/;

export function isMediaPath(path: string): boolean {
  return mediaPath.test(path);
}

export interface WriteResult {
  files: number;
  bytes: number;
  /** Media paths the database named but whose file was gone, also from media/.held (deleted outside the board): left out. */
  skipped: string[];
}

/**
 * Writes the archive into `target` (an existing, empty file). A media file missing at its path is
 * taken from media/.held (moved there under the backup's hold), or else skipped with a note; one
 * that is open when deleted is still written whole. `note` gets progress lines. A failing write
 * (a full disk) rejects with its own error.
 */
export async function writeArchive(target: string, dbFile: string, mediaDir: string, paths: readonly string[], note: (line: string) => void): Promise<WriteResult> {
  const archive = pack();
  const out = createWriteStream(target);
  let failure: Error | undefined; // the first failure: a full disk (ENOSPC) is reported as such, not as what it broke next
  const written = new Promise<void>((resolve) => {
    out.on('close', resolve);
    out.on('error', (err) => archive.destroy((failure ??= err)));
    archive.on('error', (err: Error) => out.destroy((failure ??= err)));
  });
  archive.pipe(out);
  const result: WriteResult = { files: 0, bytes: 0, skipped: [] };
  let lastNote = Date.now();
  const add = async (name: string, file: string): Promise<boolean> => {
    const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!handle) return false;
    try {
      const { size, mtime } = await handle.stat();
      await addEntry(archive, { name, size, mtime, mode: name === archiveDbName ? 0o600 : 0o644 }, size ? handle.createReadStream({ start: 0, end: size - 1, autoClose: false }) : undefined);
      result.bytes += size;
      return true;
    } finally {
      await handle.close();
    }
  };

  try {
    if (!(await add(archiveDbName, dbFile))) throw new Error(`the database copy ${dbFile} disappeared`);
    for (const [i, path] of paths.entries()) {
      // A file the server removed under the backup's media hold lies in the held folder.
      if (!isMediaPath(path) || !((await add(`media/${path}`, join(mediaDir, path))) || (await add(`media/${path}`, heldPath(mediaDir, path))))) {
        result.skipped.push(path);
        note(`board-admin: ${path}: ${isMediaPath(path) ? 'deleted meanwhile' : 'not a media path'}, skipped`);
      } else {
        result.files++;
      }
      // Progress for large boards: every 500 files, and at least every 2 seconds.
      if ((i + 1) % 500 === 0 || Date.now() - lastNote >= 2000) {
        lastNote = Date.now();
        note(`board-admin: ${i + 1}/${paths.length} media files, ${(result.bytes / 1048576).toFixed(1)} MiB written`);
      }
    }
    archive.finalize();
  } catch (err) {
    archive.destroy((failure ??= err as Error));
  }
  await written;
  if (failure) throw failure;
  return result;
}

/** Writes one entry; rejects when the source or the archive fails (the archive's stream then carries the first error). */
function addEntry(archive: Pack, header: { name: string; size: number; mtime: Date; mode: number }, source: Readable | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (!source) return void archive.entry(header, Buffer.alloc(0), done);
    const sink = archive.entry(header, done);
    sink.on('error', (err: Error) => {
      source.destroy();
      reject(err);
    });
    source.on('error', (err) => {
      sink.destroy(err);
      reject(err);
    });
    source.pipe(sink as unknown as NodeJS.WritableStream);
  });
}

/** One entry of an archive being read: the database, or a media file with its path relative to media/. */
export type ArchiveEntry = { kind: 'database'; size: number } | { kind: 'media'; path: string; size: number };

/**
 * Reads an archive entry by entry. Each entry's name and type are checked before `onEntry` sees
 * it: anything but the database and plain media files (a path leaving media/, a link, a device,
 * a second database) rejects the whole archive. `onEntry` must consume the stream.
 */
export async function readArchive(file: string, onEntry: (entry: ArchiveEntry, stream: Readable) => Promise<void>): Promise<void> {
  const parser = extract();
  const source = createReadStream(file);
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser as unknown as NodeJS.WritableStream);
  try {
    if (!(await readEntries(parser as unknown as AsyncIterable<EntryStream>, onEntry))) throw new Error(`the archive holds no ${archiveDbName}`);
  } finally {
    source.destroy();
  }
}

type EntryStream = Readable & { header: { name: string; type: string; size: number } };

/** Checks and hands on each entry; says whether the database was among them. */
async function readEntries(entries: AsyncIterable<EntryStream>, onEntry: (entry: ArchiveEntry, stream: Readable) => Promise<void>): Promise<boolean> {
  let sawDatabase = false;
  for await (const stream of entries) {
    const { name, type, size } = stream.header;
    if (type !== 'file' && type !== 'contiguous-file') throw new Error(`the archive holds "${name}", which is not a plain file (${type})`);
    if (name === archiveDbName && sawDatabase) throw new Error(`the archive holds "${name}" twice`);
    if (name === archiveDbName) {
      sawDatabase = true;
      await onEntry({ kind: 'database', size }, stream);
    } else if (name.startsWith('media/') && isMediaPath(name.slice('media/'.length))) {
      await onEntry({ kind: 'media', path: name.slice('media/'.length), size }, stream);
    } else {
      throw new Error(`the archive holds "${name}", which is neither ${archiveDbName} nor a media file`);
    }
  }
  return sawDatabase;
}

/** Writes an entry's stream into a new file ('wx': a name twice in an archive is refused). */
export function streamToFile(stream: Readable, file: string, mode: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file, { flags: 'wx', mode });
    out.on('error', reject);
    out.on('close', resolve);
    stream.on('error', (err) => {
      out.destroy();
      reject(err);
    });
    stream.pipe(out);
  });
}
