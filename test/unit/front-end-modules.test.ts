import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Issue 30, "no side effects on import": a front-end module only exports; web/static/main.js, the
 * page's one script, is the only one that starts anything. Imported here, in Node, where there is
 * no window, document or location: a module that draws or listens on import throws a
 * ReferenceError, and one that schedules work calls a timer, a microtask or fetch.
 */
const staticDir = fileURLToPath(new URL('../../web/static/', import.meta.url));
/** The page's one script, and the proof-of-work worker's (a Web Worker's script is an entry of its own). */
const entries = ['main.js', 'pow-worker.js'];

test('importing any front-end module but main.js draws, listens and schedules nothing', async () => {
  const modules = readdirSync(staticDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && !entries.includes(file))
    .sort();
  assert.ok(modules.includes('app.js') && modules.includes(join('components', 'entry.js')), 'the modules were found');
  const scheduling = ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'fetch'] as const;
  const originals = Object.fromEntries(scheduling.map((name) => [name, globalThis[name]]));
  const scheduled: string[] = [];
  const failures: string[] = [];
  for (const file of modules) {
    for (const name of scheduling) Object.assign(globalThis, { [name]: () => scheduled.push(`${file}: ${name}`) });
    try {
      await import(pathToFileURL(join(staticDir, file)).href);
    } catch (err) {
      failures.push(`${file}: ${(err as Error).message}`);
    } finally {
      Object.assign(globalThis, originals);
    }
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(scheduled, []);
});
