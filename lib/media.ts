import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from './config.ts';

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

/** Removes media files, best-effort: a missing file is not an error. */
export async function removeMedia(config: Config, relativePaths: Iterable<string>): Promise<void> {
  for (const relative of relativePaths) {
    if (!relative || relative.includes('..')) continue;
    await rm(join(config.mediaDir, relative), { force: true }).catch(() => {});
  }
}
