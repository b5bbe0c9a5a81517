import { createReadStream, createWriteStream, statfsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack, type Pack } from 'tar-stream';
import { sizeText } from '../text/size-text.ts';
import { heldPath } from '../media/hold.ts';
import { boardMediaName, isMediaFormat, mediaFormats, mediaHeadBytes, type MediaExtension } from '../media/files.ts';

/**
 * The `backup --with-media` archive: a plain tar file (`tar -tf` lists it) holding `board.db`
 * first, then `media/<folder>/<name>` for every media file the database refers to. Written and
 * read as a stream, so neither the database nor the media have to fit in memory.
 *
 * What a restore accepts is exactly what a backup writes, so a hostile archive can bring nothing
 * else into BOARD_DATA (docs/SECURITY.md "Backup archives and the media folder"): board.db first; then only plain
 * files named as the board names its media, each named by a row of that database, once, at most
 * maxArchiveMediaBytes, and beginning with the bytes of the format its name says.
 */
export const archiveDbName = 'board.db';

/**
 * The largest media file an archive may hold. Why: a header can claim any size, and the board
 * writes nothing near it (its images are bounded by lib/product.ts, uploads by BOARD_MAX_UPLOAD).
 */
export const maxArchiveMediaBytes = 64 * 1048576;

export function mediaContentProblem(extension: MediaExtension, size: number, head?: Buffer): string | undefined {
  if (size > maxArchiveMediaBytes)
    return `larger than any image the board writes (${maxArchiveMediaBytes / 1048576} MiB)`;
  if (head && !isMediaFormat(extension, head)) return `not a ${mediaFormats[extension].name} image`;
  return undefined;
}

export interface WriteResult {
  files: number;
  bytes: number;
  skipped: string[];
  refused: string[];
}

/**
 * Writes the archive into `target` (an existing, empty file). A media file gone from its path is
 * taken from media/.held (where the backup's hold moved it) or skipped with a note, and one that is
 * not the board's is left out with a note. A failing write (a full disk) rejects with its own
 * error.
 */
export async function writeArchive(
  target: string,
  dbFile: string,
  mediaDir: string,
  paths: readonly string[],
  note: (line: string) => void,
): Promise<WriteResult> {
  const archive = pack();
  const out = createWriteStream(target);
  let failure: Error | undefined; // the first failure: a full disk (ENOSPC) is reported as such, not as what it broke next
  const written = new Promise<void>((resolve) => {
    out.on('close', resolve);
    out.on('error', (err) => archive.destroy((failure ??= err)));
    archive.on('error', (err: Error) => out.destroy((failure ??= err)));
  });
  archive.pipe(out);
  const result: WriteResult = { files: 0, bytes: 0, skipped: [], refused: [] };
  let lastNote = Date.now();
  const add = async (
    name: string,
    handle: FileHandle | undefined,
    extension?: MediaExtension,
  ): Promise<string | undefined> => {
    if (!handle) return 'deleted meanwhile';
    try {
      const { size, mtime } = await handle.stat();
      if (extension) {
        const head = Buffer.alloc(mediaHeadBytes);
        const problem = mediaContentProblem(
          extension,
          size,
          head.subarray(0, (await handle.read(head, 0, head.length, 0)).bytesRead),
        );
        if (problem) return problem;
      }
      await addEntry(
        archive,
        { name, size, mtime, mode: 0o600 },
        size ? handle.createReadStream({ start: 0, end: size - 1, autoClose: false }) : undefined,
      );
      result.bytes += size;
      return undefined;
    } finally {
      await handle.close();
    }
  };

  try {
    if (await add(archiveDbName, await openIfThere(dbFile))) throw new Error(`the database copy ${dbFile} disappeared`);
    for (const [i, path] of paths.entries()) {
      const name = boardMediaName(path);
      const why = name
        ? await add(`media/${path}`, await openMedia(mediaDir, path), name.extension)
        : 'not a media file the board writes';
      if (why) {
        (why === 'deleted meanwhile' ? result.skipped : result.refused).push(path);
        note(`board-admin: ${path}: ${why}, skipped`);
      } else {
        result.files++;
      }
      if ((i + 1) % 500 === 0 || Date.now() - lastNote >= 2000) {
        lastNote = Date.now();
        note(`board-admin: ${i + 1}/${paths.length} media files, ${sizeText(result.bytes)} written`);
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

async function openMedia(mediaDir: string, path: string): Promise<FileHandle | undefined> {
  return (await openIfThere(join(mediaDir, path))) ?? openIfThere(heldPath(mediaDir, path));
}

async function openIfThere(file: string): Promise<FileHandle | undefined> {
  return open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

function addEntry(
  archive: Pack,
  header: { name: string; size: number; mtime: Date; mode: number },
  source: Readable | undefined,
): Promise<void> {
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

export interface ArchiveReader {
  database(stream: Readable, size: number): Promise<ReadonlySet<string>>;
  media(path: string, stream: Readable, size: number): Promise<void>;
}

/**
 * Reads an archive entry by entry (each must be consumed whole) and rejects the whole archive,
 * naming the entry, at anything writeArchive does not write: a link, device or folder, a first
 * entry other than board.db, a repeated or foreign name, a file no row names, one too large or not
 * its format.
 */
export async function readArchive(file: string, reader: ArchiveReader): Promise<void> {
  const parser = extract();
  const source = createReadStream(file);
  source.on('error', (err) => parser.destroy(err));
  source.pipe(parser as unknown as NodeJS.WritableStream);
  try {
    await readEntries(parser as unknown as AsyncIterable<EntryStream>, reader);
  } finally {
    source.destroy();
  }
}

type EntryStream = Readable & { header: { name: string; type: string; size: number } };

async function readEntries(entries: AsyncIterable<EntryStream>, reader: ArchiveReader): Promise<void> {
  let referenced: ReadonlySet<string> | undefined;
  const seen = new Set<string>();
  for await (const stream of entries) {
    const { name, type, size } = stream.header;
    const refuse = (why: string) => new Error(`the archive holds "${name}", which is ${why}`);
    if (type !== 'file' && type !== 'contiguous-file') throw refuse(`not a plain file (${type})`);
    if (seen.has(name)) throw new Error(`the archive holds "${name}" twice`);
    seen.add(name);
    if (!referenced) {
      if (name !== archiveDbName) throw new Error(`the archive begins with "${name}", not with ${archiveDbName}`);
      referenced = await reader.database(Readable.from(stream, { objectMode: false }), size);
      continue;
    }
    const path = name.startsWith('media/') ? name.slice('media/'.length) : '';
    const media = boardMediaName(path);
    if (!media) throw refuse(`neither ${archiveDbName} nor a media file`);
    if (!referenced.has(path)) throw refuse('a media file no row of its database names');
    const problem = mediaContentProblem(media.extension, size);
    if (problem) throw refuse(problem);
    await reader.media(path, Readable.from(checkedHead(stream, media.extension, refuse), { objectMode: false }), size);
  }
  if (!referenced) throw new Error(`the archive holds no ${archiveDbName}`);
}

async function* checkedHead(
  source: AsyncIterable<Buffer>,
  extension: MediaExtension,
  refuse: (why: string) => Error,
): AsyncGenerator<Buffer> {
  let head: Buffer[] | undefined = [];
  let length = 0;
  const release = () => {
    const problem = mediaContentProblem(extension, 0, Buffer.concat(head!));
    if (problem) throw refuse(problem);
    const bytes = head!;
    head = undefined;
    return bytes;
  };
  for await (const chunk of source) {
    if (!head) {
      yield chunk;
      continue;
    }
    head.push(chunk);
    length += chunk.length;
    if (length >= mediaHeadBytes) yield* release();
  }
  if (head) yield* release();
}

/** Refuses an entry larger than the free space of the folder it is to be written into (a header can claim any size). */
export function checkRoom(folder: string, bytes: number, what: string): void {
  const { bavail, bsize } = statfsSync(folder);
  const free = bavail * bsize;
  if (bytes > free) throw new Error(`${what} needs ${sizeText(bytes)}, but ${folder} has ${sizeText(free)} free`);
}

export function streamToFile(stream: Readable, file: string): Promise<void> {
  return pipeline(stream, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
}
