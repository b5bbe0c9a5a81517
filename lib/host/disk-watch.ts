import { statfsSync } from 'node:fs';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';

import { sizeText } from '../text/size-text.ts';
import type { Log } from '../log.ts';

/** Free bytes an unprivileged process may still write on the volume that holds `path`. */
export function volumeFreeBytes(path: string): number {
  const volume = statfsSync(path);
  return volume.bavail * volume.bsize;
}

export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

/** How long a refused write keeps /api/health degraded, and the least time between two log lines about them. */
export const diskFullSeconds = 60;

export type DiskProblem = 'disk_full' | 'disk_low';

export interface DiskWatch {
  /**
   * The answer to a failed request: a write refused for lack of space becomes 507
   * server.disk_full, counted and logged at most once a minute (a full disk refuses every write,
   * and a stack per request would bury the log); any other error is returned as it is.
   */
  answer(err: unknown): unknown;
  problems(): DiskProblem[];
  freeBytes(): number;
  /**
   * At the start: one line when free space is already under BOARD_DISK_LOW_MB. Why: /api/health
   * says disk_low from the first second, and the operator reading the start should hear it there
   * too, before the first write fails.
   */
  logIfLow(): void;
}

export interface DiskWatchOptions {
  dataDir: string;
  lowBytes: number;
  clock: Clock;
  log: Log;
  freeBytes?: (path: string) => number;
}

export function createDiskWatch({
  dataDir,
  lowBytes,
  clock,
  log,
  freeBytes = volumeFreeBytes,
}: DiskWatchOptions): DiskWatch {
  let lastRefused = -Infinity;
  let lastLine = -Infinity;
  let unlogged = 0;
  const free = () => {
    try {
      return freeBytes(dataDir);
    } catch {
      return Number.NaN;
    }
  };
  const freeText = (bytes: number) => (Number.isNaN(bytes) ? 'unknown space' : sizeText(bytes));
  const isLow = (bytes: number) => lowBytes > 0 && bytes < lowBytes;
  return {
    answer(err) {
      if (!isDiskFull(err)) return err;
      const now = clock.now();
      lastRefused = now;
      unlogged++;
      if (now - lastLine >= diskFullSeconds) {
        log(
          `disk full: ${unlogged} write${unlogged === 1 ? '' : 's'} refused for lack of space since the last such line (${freeText(free())} free in ${dataDir}); the next line comes a minute later at the earliest`,
        );
        lastLine = now;
        unlogged = 0;
      }
      return new ApiError(507, 'server.disk_full');
    },
    problems() {
      const problems: DiskProblem[] = [];
      if (clock.now() - lastRefused < diskFullSeconds) problems.push('disk_full');
      if (isLow(free())) problems.push('disk_low');
      return problems;
    },
    freeBytes: free,
    logIfLow() {
      const bytes = free();
      if (!isLow(bytes)) return;
      log(
        `disk low: ${freeText(bytes)} free in ${dataDir}, less than BOARD_DISK_LOW_MB=${lowBytes / 2 ** 20}: /api/health answers 503 with disk_low until there is more room`,
      );
    },
  };
}
