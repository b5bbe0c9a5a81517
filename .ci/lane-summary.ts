import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `make test`'s summary of its lanes (.ci/test-lane.ts), from their queue folder: the slowest
 * files with their time, and a check that every file of the run ran to its end (a lane that
 * stopped early would otherwise leave files unrun without a failed test).
 */

export interface FileTime {
  file: string;
  /** Wall seconds from the file's first hook to its last, while the other lane ran beside it. */
  seconds: number;
  /** CPU seconds of the lane's own process meanwhile (servers in child processes and Chromium not counted). */
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
    .map(
      (time) => `${time.seconds.toFixed(1).padStart(7)} s  ${time.file}  (${time.cpu.toFixed(1)} s CPU in the lane)`,
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const queue = process.argv[2]!;
  const times = readTimes(queue);
  console.log('make test: the 10 slowest files:');
  for (const line of slowest(times, 10)) console.log(line);
  const missing = unfinished(queue);
  if (missing.length) {
    console.error(`make test: FAILED: ${missing.length} files did not run to their end:`);
    for (const file of missing) console.error(`  ${file}`);
    process.exit(1);
  }
}
