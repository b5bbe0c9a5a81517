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
 * writes nothing near it (an entry image is at most 1024 px on a side, an animated GIF at most
 * 20 megapixels of frames, from an upload of BOARD_MAX_UPLOAD, 8 MiB by default).
 */
export const maxArchiveMediaBytes = 64 * 1048576;

/** Why a media file's size or first bytes are not what the board writes; undefined when they are. */
export function mediaContentProblem(extension: MediaExtension, size: number, head?: Buffer): string | undefined {
  if (size > maxArchiveMediaBytes)
    return `larger than any image the board writes (${maxArchiveMediaBytes / 1048576} MiB)`;
  if (head && !isMediaFormat(extension, head)) return `not a ${mediaFormats[extension].name} image`;
  return undefined;
}

export interface WriteResult {
  files: number;
  bytes: number;
  /** Media paths the database named but whose file was gone, also from media/.held (deleted outside the board): left out. */
  skipped: string[];
  /** Media paths whose name, size or bytes are not what the board writes (a restore would refuse them): left out. */
  refused: string[];
}

/**
 * Writes the archive into `target` (an existing, empty file). A media file missing at its path is
 * taken from media/.held (moved there under the backup's hold), or else skipped with a note; one
 * that is open when deleted is still written whole; one that is not the board's is left out with
 * a note. `note` gets progress lines. A failing write (a full disk) rejects with its own error.
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
  /** Adds one file; says why not when it is missing or not the board's. */
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
      // Progress for large boards: every 500 files, and at least every 2 seconds.
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

/** A media file at its path, or where the backup's hold moved it when the server removed it (media/.held). */
async function openMedia(mediaDir: string, path: string): Promise<FileHandle | undefined> {
  return (await openIfThere(join(mediaDir, path))) ?? openIfThere(heldPath(mediaDir, path));
}

async function openIfThere(file: string): Promise<FileHandle | undefined> {
  return open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/** Writes one entry; rejects when the source or the archive fails (the archive's stream then carries the first error). */
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

/** How an archive's content is taken in, entry by entry, once each entry has passed the checks. */
export interface ArchiveReader {
  /** Takes board.db (the first entry), checks it and returns the media paths its rows name. */
  database(stream: Readable, size: number): Promise<ReadonlySet<string>>;
  /** Takes one media file; its bytes fail the stream before the first one when they are not the format its name says. */
  media(path: string, stream: Readable, size: number): Promise<void>;
}

/**
 * Reads an archive entry by entry; each must be consumed whole. Anything but what writeArchive
 * writes rejects the whole archive with one line naming the entry: a link, a device or a folder,
 * a first entry other than board.db, a name twice, a name that is not a media file the board
 * writes (a path leaving media/, an .html, an .svg), a media file no row of the database names,
 * one larger than maxArchiveMediaBytes, or one whose bytes are not its format.
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

/** Passes an entry's bytes on once its first ones are the format its name says; throws before the first byte otherwise. */
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

/** Writes an entry's stream into a new file ('wx': never over an existing one), readable by its owner alone. */
export function streamToFile(stream: Readable, file: string): Promise<void> {
  return pipeline(stream, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
}
