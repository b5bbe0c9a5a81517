import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { holdMediaFile, mediaHeld } from './hold.ts';
import { logFailure } from '../log.ts';

/** Media folders under $BOARD_DATA/media: entry images, avatars, preview thumbnails. */
export type MediaFolder = 'e' | 'a' | 'preview';

/**
 * The image formats the board writes, by the extension it gives them: sharp's name for the
 * format, the Content-Type it is served with, and how its bytes begin. Why one list: the server
 * serves nothing else from media/ (lib/pages/files.ts), and a backup archive carries and a restore
 * accepts nothing else (lib/admin/archive.ts), so no file there can ever be a page or a script.
 */
export const mediaFormats = {
  jpg: { sharp: 'jpeg', type: 'image/jpeg', name: 'JPEG', magic: [Buffer.from([0xff, 0xd8, 0xff])] },
  png: {
    sharp: 'png',
    type: 'image/png',
    name: 'PNG',
    magic: [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  },
  gif: {
    sharp: 'gif',
    type: 'image/gif',
    name: 'GIF',
    magic: [Buffer.from('GIF87a', 'latin1'), Buffer.from('GIF89a', 'latin1')],
  },
  webp: {
    sharp: 'webp',
    type: 'image/webp',
    name: 'WebP',
    magic: [Buffer.from('RIFF', 'latin1')],
    at8: Buffer.from('WEBP', 'latin1'),
  },
} as const;
export type MediaExtension = keyof typeof mediaFormats;

const everyFormat = Object.keys(mediaFormats) as MediaExtension[];
/** Which formats each folder holds: uploads and avatars keep their format, thumbnails are always JPEG. */
const folderFormats: Record<MediaFolder, readonly MediaExtension[]> = {
  e: everyFormat,
  a: everyFormat,
  preview: ['jpg'],
};
export const mediaFolders = Object.keys(folderFormats) as MediaFolder[];

/** Random bytes in a media name: never guessed, never reused. */
const nameBytes = 16;
const mediaName = new RegExp(`^(${mediaFolders.join('|')})/[0-9a-f]{${nameBytes * 2}}\\.(${everyFormat.join('|')})$`);

/** How many leading bytes `isMediaFormat` needs (WebP's "RIFF", size, "WEBP"). */
export const mediaHeadBytes = 12;

/** A media file as the board names them (`e/<32 hex>.jpg`), or undefined for any other path relative to media/. */
export function boardMediaName(path: string): { folder: MediaFolder; extension: MediaExtension } | undefined {
  const match = mediaName.exec(path);
  if (!match) return undefined;
  const folder = match[1] as MediaFolder;
  const extension = match[2] as MediaExtension;
  return folderFormats[folder].includes(extension) ? { folder, extension } : undefined;
}

/** Whether a file's first bytes (at least mediaHeadBytes of them, or the whole file) are the format its extension names. */
export function isMediaFormat(extension: MediaExtension, head: Buffer): boolean {
  const format: { magic: readonly Buffer[]; at8?: Buffer } = mediaFormats[extension];
  if (!format.magic.some((magic) => head.subarray(0, magic.length).equals(magic))) return false;
  return !format.at8 || head.subarray(8, 8 + format.at8.length).equals(format.at8);
}

/**
 * Every media path (relative to media/) that a row refers to: entry images, avatars, preview
 * thumbnails. gc-media keeps these; a backup --with-media carries them.
 */
export const referencedMediaSql = `SELECT filepath AS path FROM entries WHERE filepath <> ''
  UNION SELECT avatar FROM users WHERE avatar <> ''
  UNION SELECT thumb FROM previews WHERE thumb <> ''`;

/** Writes bytes under a random name and returns the path relative to media/ (what the API shows). */
export async function saveMedia(
  config: Config,
  folder: MediaFolder,
  extension: MediaExtension,
  data: Buffer,
): Promise<string> {
  const relative = `${folder}/${randomBytes(nameBytes).toString('hex')}.${extension}`;
  const full = join(config.mediaDir, relative);
  await mkdir(dirname(full), { recursive: true, mode: 0o700 });
  try {
    await writeFile(full, data, { flag: 'wx', mode: 0o600 }); // the owner's only, like the database
  } catch (err) {
    // A full disk leaves the file cut short: nothing half-written stays behind (the name is ours alone, 'wx').
    await rm(full, { force: true }).catch(() => {});
    throw err;
  }
  return relative;
}

/**
 * Removes media files: a missing file is not an error. The one funnel of every removal: while a
 * backup holds the media (lib/media/hold.ts) the files are moved aside instead. Call it only
 * after the row change that dropped the files is committed. Why a failure (EACCES, EIO) is logged
 * and not thrown: the write it follows stands, and its answer with it; the file is left for
 * `board-admin gc-media`, and the operator learns why from the log.
 */
export async function removeMedia(
  config: Pick<Config, 'mediaDir'>,
  relativePaths: Iterable<string>,
  log: (line: string) => void,
): Promise<void> {
  let held: boolean | undefined; // looked up once per call, and only when there is a file to remove
  for (const relative of relativePaths) {
    if (!relative || relative.includes('..')) continue;
    try {
      held ??= await mediaHeld(config.mediaDir);
      await retireMedia(config.mediaDir, relative, held);
    } catch (err) {
      logFailure(log, `media: cannot remove ${relative}, left for gc-media`, err);
    }
  }
}

/** Deletes one media file, or moves it into the held folder when `held`; a missing file is no error. */
export async function retireMedia(mediaDir: string, relative: string, held: boolean): Promise<void> {
  if (held) await holdMediaFile(mediaDir, relative);
  else await rm(join(mediaDir, relative), { force: true });
}
