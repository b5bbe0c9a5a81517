import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { mediaHeld } from '../media/hold.ts';
import { mediaFolders, referencedMediaSql, retireMedia } from '../media/files.ts';

/** Files younger than this may belong to a request still writing its row: never collected. */
export const gcMinAgeSeconds = 3600;

function referencedMedia(db: Db): Set<string> {
  const rows = db.all<{ path: string }>(referencedMediaSql);
  return new Set(rows.map((r) => r.path));
}

/**
 * Removes media files no row references (a crash between writing a file and committing its row, or
 * a failed best-effort delete). Safe beside a running server: young files stay, only the board's
 * folders are walked (never media/.held), and under a backup's hold it moves files aside like every
 * removal.
 */
export async function collectOrphanMedia(
  config: Config,
  db: Db,
  nowMs = Date.now(),
): Promise<{ removed: string[]; kept: number }> {
  const referenced = referencedMedia(db);
  const held = await mediaHeld(config.mediaDir);
  const removed: string[] = [];
  let kept = 0;
  for (const folder of mediaFolders) {
    const names = await readdir(join(config.mediaDir, folder)).catch(() => [] as string[]);
    for (const name of names) {
      const relative = `${folder}/${name}`;
      const full = join(config.mediaDir, relative);
      const info = await stat(full).catch(() => undefined);
      if (!info?.isFile() || referenced.has(relative) || nowMs - info.mtimeMs < gcMinAgeSeconds * 1000) {
        kept++;
        continue;
      }
      await retireMedia(config.mediaDir, relative, held);
      removed.push(relative);
    }
  }
  return { removed, kept };
}
