import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { mediaFolders, type MediaFolder } from './files.ts';

/** How old the media sizes the metrics show may be: a walk stats every file, so it runs at most this often. */
export const mediaUsageMaxAgeSeconds = 600;

export type MediaBytes = Record<MediaFolder, number>;

export function mediaUsage(mediaDir: string, now: () => number): { current(): Promise<MediaBytes> } {
  let known: { at: number; bytes: MediaBytes } | undefined;
  let walking: Promise<MediaBytes> | undefined;
  const walk = async (): Promise<MediaBytes> => {
    const bytes = Object.fromEntries(mediaFolders.map((folder) => [folder, 0])) as MediaBytes;
    for (const folder of mediaFolders) bytes[folder] = await folderBytes(join(mediaDir, folder));
    known = { at: now(), bytes };
    return bytes;
  };
  return {
    current() {
      if (!known || now() - known.at >= mediaUsageMaxAgeSeconds) {
        walking ??= walk().finally(() => {
          walking = undefined;
        });
        if (!known) return walking;
      }
      return Promise.resolve(known.bytes);
    },
  };
}

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of await opendir(folder)) {
      if (!entry.isFile()) continue;
      total += await stat(join(folder, entry.name)).then(
        (file) => file.size,
        () => 0,
      );
    }
  } catch {
    // no such folder yet: nothing stored there
  }
  return total;
}
