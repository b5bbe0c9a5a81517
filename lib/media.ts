import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from './config.ts';
import { holdMediaFile, mediaHeld } from './media-hold.ts';

/** Media folders under $BOARD_DATA/media: entry images, avatars, preview thumbnails. */
export type MediaFolder = 'e' | 'a' | 'preview';

/**
 * Every media path (relative to media/) that a row refers to: entry images, avatars, preview
 * thumbnails. gc-media keeps these; a backup --with-media carries them.
 */
export const referencedMediaSql = `SELECT filepath AS path FROM entries WHERE filepath <> ''
  UNION SELECT avatar FROM users WHERE avatar <> ''
  UNION SELECT thumb FROM previews WHERE thumb <> ''`;

/** Writes bytes under a random name and returns the path relative to media/ (what the API shows). */
export async function saveMedia(config: Config, folder: MediaFolder, extension: string, data: Buffer): Promise<string> {
  const relative = `${folder}/${randomBytes(16).toString('hex')}.${extension}`;
  const full = join(config.mediaDir, relative);
  await mkdir(dirname(full), { recursive: true, mode: 0o700 });
  await writeFile(full, data, { flag: 'wx', mode: 0o600 }); // the owner's only, like the database
  return relative;
}

/**
 * Removes media files, best-effort: a missing file is not an error. The one funnel of every
 * removal: while a backup holds the media (lib/media-hold.ts) the files are moved aside instead.
 * Call it only after the row change that dropped the files is committed.
 */
export async function removeMedia(config: Config, relativePaths: Iterable<string>): Promise<void> {
  let held: boolean | undefined; // looked up once per call, and only when there is a file to remove
  for (const relative of relativePaths) {
    if (!relative || relative.includes('..')) continue;
    held ??= await mediaHeld(config.mediaDir);
    await retireMedia(config.mediaDir, relative, held).catch(() => {});
  }
}

/** Deletes one media file, or moves it into the held folder when `held`; a missing file is no error. */
export async function retireMedia(mediaDir: string, relative: string, held: boolean): Promise<void> {
  if (held) await holdMediaFile(mediaDir, relative);
  else await rm(join(mediaDir, relative), { force: true });
}
