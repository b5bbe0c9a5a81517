import { existsSync, readFileSync } from 'node:fs';

/** The pids of a process's children (a cluster's workers, the Chromium a test process started), from /proc. */
export function childPids(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}
