import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `make test`'s summary of its lanes (.ci/test-lane.ts), from their queue folder: the slowest
 * files with their time, the CPU by folder, and a check that every file of the run ran to its end (a lane that
 * stopped early would otherwise leave files unrun without a failed test).
 */

export interface FileTime {
  file: string;
  /** Wall seconds from the file's first hook to its last, while the other lane ran beside it. */
  seconds: number;
  /** CPU seconds of the lane and every process below it meanwhile: Chromium, servers, board-admin (.ci/tree-cpu.ts). */
  cpu: number;
}

export function readTimes(queue: string): FileTime[] {
  const path = join(queue, 'times');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [file, seconds, cpu] = line.split('\t');
      return { file: file!, seconds: Number(seconds), cpu: Number(cpu) };
    });
}

/** The files of the run that have no time: they did not run to their end. */
export function unfinished(queue: string): string[] {
  const done = new Set(readTimes(queue).map((time) => time.file));
  return readFileSync(join(queue, 'files'), 'utf8')
    .split('\n')
    .filter((file) => file && !done.has(file));
}

export function slowest(times: FileTime[], count: number): string[] {
  return [...times]
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count)
    .map((time) => `${time.seconds.toFixed(1).padStart(7)} s  ${time.file}  (${time.cpu.toFixed(1)} s CPU)`);
}

/** CPU seconds by test folder (test/api, test/browser, ...), the most first, and in all. */
export function cpuByFolder(times: FileTime[]): string {
  const folders = new Map<string, number>();
  for (const time of times) {
    const folder = time.file.split('/').slice(0, -1).join('/');
    folders.set(folder, (folders.get(folder) ?? 0) + time.cpu);
  }
  const total = times.reduce((sum, time) => sum + time.cpu, 0);
  const parts = [...folders].sort((a, b) => b[1] - a[1]).map(([folder, cpu]) => `${folder} ${cpu.toFixed(0)} s`);
  return `${total.toFixed(0)} s of CPU in ${times.length} files: ${parts.join(', ')}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const queue = process.argv[2]!;
  const times = readTimes(queue);
  console.log('make test: the 10 slowest files:');
  for (const line of slowest(times, 10)) console.log(line);
  console.log(`make test: ${cpuByFolder(times)}`);
  const missing = unfinished(queue);
  if (missing.length) {
    console.error(`make test: FAILED: ${missing.length} files did not run to their end:`);
    for (const file of missing) console.error(`  ${file}`);
    process.exit(1);
  }
}
