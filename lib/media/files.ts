import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { holdMediaFile, mediaHeld } from './hold.ts';
import { logFailure } from '../log.ts';

export type MediaFolder = 'e' | 'a' | 'preview';

/**
 * The image formats the board writes, by extension: sharp's name, the Content-Type served, and how
 * the bytes begin. Why one list: the server serves nothing else from media/, and a backup carries
 * and a restore accepts nothing else, so no file there can ever be a page or a script.
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
const folderFormats: Record<MediaFolder, readonly MediaExtension[]> = {
  e: everyFormat,
  a: everyFormat,
  preview: ['jpg'],
};
export const mediaFolders = Object.keys(folderFormats) as MediaFolder[];

const nameBytes = 16;
const mediaName = new RegExp(`^(${mediaFolders.join('|')})/[0-9a-f]{${nameBytes * 2}}\\.(${everyFormat.join('|')})$`);

export const mediaHeadBytes = 12;

export function boardMediaName(path: string): { folder: MediaFolder; extension: MediaExtension } | undefined {
  const match = mediaName.exec(path);
  if (!match) return undefined;
  const folder = match[1] as MediaFolder;
  const extension = match[2] as MediaExtension;
  return folderFormats[folder].includes(extension) ? { folder, extension } : undefined;
}

export function isMediaFormat(extension: MediaExtension, head: Buffer): boolean {
  const format: { magic: readonly Buffer[]; at8?: Buffer } = mediaFormats[extension];
  if (!format.magic.some((magic) => head.subarray(0, magic.length).equals(magic))) return false;
  return !format.at8 || head.subarray(8, 8 + format.at8.length).equals(format.at8);
}

export const referencedMediaSql = `SELECT filepath AS path FROM entries WHERE filepath <> ''
  UNION SELECT avatar FROM users WHERE avatar <> ''
  UNION SELECT thumb FROM previews WHERE thumb <> ''`;

export async function saveMedia(
  config: Pick<Config, 'mediaDir'>,
  folder: MediaFolder,
  extension: MediaExtension,
  data: Buffer,
): Promise<string> {
  const relative = `${folder}/${randomBytes(nameBytes).toString('hex')}.${extension}`;
  const full = join(config.mediaDir, relative);
  await mkdir(dirname(full), { recursive: true, mode: 0o700 });
  try {
    await writeFile(full, data, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    // A full disk leaves the file cut short: nothing half-written stays behind (the name is ours alone, 'wx').
    await rm(full, { force: true }).catch(() => {});
    throw err;
  }
  return relative;
}

/**
 * Removes media files (a missing one is no error), after the row change that dropped them
 * committed: the one funnel of every removal, which moves files aside while a backup holds the
 * media. A failure is logged, not thrown: the write stands, and `board-admin gc-media` takes the
 * file later.
 */
export async function removeMedia(
  config: Pick<Config, 'mediaDir'>,
  relativePaths: Iterable<string>,
  log: (line: string) => void,
): Promise<void> {
  let held: boolean | undefined;
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

export async function retireMedia(mediaDir: string, relative: string, held: boolean): Promise<void> {
  if (held) await holdMediaFile(mediaDir, relative);
  else await rm(join(mediaDir, relative), { force: true });
}
