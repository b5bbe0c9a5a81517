import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHitLines } from '../../lib/http/hit-lines.ts';

/**
 * lib/http/hit-lines.ts: cached answers are counted per path and status and written as one line
 * per path and status at the end of each interval, or at once by flush (a graceful stop).
 */

test('one line per target and interval, with the count', async () => {
  const lines: string[] = [];
  const hits = createHitLines((line) => lines.push(line), 40);
  for (let i = 0; i < 5; i++) hits.count('/api/entry/feed/0', 200);
  hits.count('/api/entry/17/thread', 200);
  hits.count('/api/entry/feed/0', 200);
  assert.deepEqual(lines, [], 'nothing before the interval ends');
  await sleep(120);
  assert.deepEqual(lines.sort(), ['GET /api/entry/17/thread 200 cached x1', 'GET /api/entry/feed/0 200 cached x6']);
  await sleep(80);
  assert.equal(lines.length, 2, 'an interval without answers writes nothing');
  hits.count('/api/entry/feed/0', 200);
  await sleep(120);
  assert.deepEqual(lines.slice(2), ['GET /api/entry/feed/0 200 cached x1'], 'the next interval counts from zero');
});

test('flush writes the counts at once and stops the interval', async () => {
  const lines: string[] = [];
  const hits = createHitLines((line) => lines.push(line), 40);
  hits.count('/api/entry/feed/3', 200);
  hits.count('/e/5', 410);
  hits.count('/api/entry/feed/3', 200);
  hits.flush();
  assert.deepEqual(lines, ['GET /api/entry/feed/3 200 cached x2', 'GET /e/5 410 cached x1']);
  await sleep(120);
  assert.equal(lines.length, 2, 'nothing counted twice');
  hits.flush();
  assert.equal(lines.length, 2, 'a flush with nothing counted writes nothing');
});

test("a proxy's view notices are counted apart from cached answers to the same path", () => {
  const lines: string[] = [];
  const hits = createHitLines((line) => lines.push(line), 40);
  hits.count('/e/5', 200);
  hits.count('/e/5', 204, 'view');
  hits.count('/e/5', 204, 'view');
  hits.flush();
  assert.deepEqual(lines, ['GET /e/5 200 cached x1', 'GET /e/5 204 view x2']);
});
