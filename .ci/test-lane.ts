import { AsyncResource } from 'node:async_hooks';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { removeMadeFolders } from '../test/helpers/folders.ts';
import { closeShared, keepSharedOpen } from '../test/helpers/shared.ts';
import { treeCpuSeconds } from './tree-cpu.ts';

/**
 * One lane of `make test`: test files one after another in this one process, so the server's
 * modules and Chromium load once per lane instead of once per file. The Makefile starts two lanes
 * (test-lane-1.ts and test-lane-2.ts) on one queue, the folder TEST_QUEUE: `files` lists the
 * files, longest first; a lane claims the next file (a folder `claimed/<n>`, made by one lane
 * only) when it has ended one, so both lanes end together. Each file runs as a suite named by its
 * path, which keeps its top-level hooks its own. Each finished file adds a line to `times`
 * (.ci/lane-summary.ts reads it). What a file must not do when it shares a process:
 * CONTRIBUTING.md "Tests".
 */

const queue = process.env.TEST_QUEUE;
if (!queue) throw new Error('TEST_QUEUE is not set: make test starts the lanes (.ci/test-lane.ts)');
const files = readFileSync(join(queue, 'files'), 'utf8').split('\n').filter(Boolean);
mkdirSync(join(queue, 'claimed'), { recursive: true });
keepSharedOpen();

/** Outside every test: a suite registered from here belongs to the run, not to the file that asked. */
const lane = new AsyncResource('test-lane');
let next = 0;
const leftOpenSeconds = 60;

function claim(): string | undefined {
  while (next < files.length) {
    const index = next++;
    try {
      mkdirSync(join(queue!, 'claimed', String(index)));
      return files[index];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return undefined;
}

/**
 * Registers the next unclaimed file's suite; false when the queue is empty. The file is loaded
 * and claimed only when the one before has ended, so its top-level code runs after that file's
 * folders are gone, and whichever lane is free takes it.
 */
function runNextFile(): boolean {
  const file = claim();
  if (file === undefined) return false;
  describe(file, async () => {
    const startedMs = performance.now();
    const cpuAtStart = treeCpuSeconds();
    try {
      await import(pathToFileURL(resolve(file)).href);
    } finally {
      // Registered after the file's own top-level hooks, so it runs after them, also when the file failed.
      after(async () => {
        const seconds = (performance.now() - startedMs) / 1000;
        const cpuSeconds = treeCpuSeconds() - cpuAtStart;
        appendFileSync(join(queue!, 'times'), `${file}\t${seconds.toFixed(2)}\t${cpuSeconds.toFixed(2)}\n`);
        removeMadeFolders(); // what the file's own process would have removed at its end
        if (!lane.runInAsyncScope(runNextFile)) await lastFileEnded();
      });
    }
  });
  return true;
}

/**
 * After the lane's last file: the shared Chromium closes, and the process should end by itself.
 * A server, timer or child process a file left running would hold it (and make test) open for
 * ever, so the lane fails instead, naming what is still open.
 */
async function lastFileEnded(): Promise<void> {
  await closeShared();
  setTimeout(() => {
    const open = process.getActiveResourcesInfo();
    console.error(`test lane: still running ${leftOpenSeconds} s after its last file; open: ${open.join(', ')}`);
    process.exit(1);
  }, leftOpenSeconds * 1000).unref();
}

runNextFile();
