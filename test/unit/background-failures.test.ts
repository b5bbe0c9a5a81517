import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from '../../lib/db/db.ts';
import { startHousekeeping } from '../../lib/jobs/housekeeping.ts';
import { createLimitStore } from '../../lib/limits/rate-limit.ts';
import { logFailure } from '../../lib/log.ts';
import { startStatisticsSweep } from '../../lib/stats/impressions.ts';

/**
 * Issue 30: work no request waits for reports a failure with its stack (lib/log.ts logFailure),
 * not only the message, so the line says which statement of which job met it.
 */

/** A database whose every call fails the way a locked or broken file does. */
const brokenDb = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('database is locked');
    },
  },
) as Db;
const clock = { now: () => 1_800_000_000 };

test('logFailure writes what failed and the whole stack; a thrown non-error as text', () => {
  const lines: string[] = [];
  const err = new Error('disk I/O error');
  logFailure((line) => lines.push(line), 'statistics: flush failed', err);
  logFailure((line) => lines.push(line), 'preview queue', 'a string');
  assert.equal(lines[0], `statistics: flush failed: ${err.stack}`);
  assert.match(lines[0]!, /^statistics: flush failed: Error: disk I\/O error\n\s+at /);
  assert.equal(lines[1], 'preview queue: a string');
});

test('housekeeping logs a failed clean-up with the stack down to the statement', async () => {
  const lines: string[] = [];
  const stop = startHousekeeping({
    db: brokenDb,
    clock,
    log: (line) => lines.push(line),
    limits: { prune() {} },
    mediaDir: '',
  });
  await nextTurn();
  stop();
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^housekeeping failed: Error: database is locked\n\s+at /);
  assert.match(lines[0]!, /deleteExpiredSessions/);
});

test('the statistics sweep logs a failed sweep with its stack', async () => {
  const lines: string[] = [];
  const stop = startStatisticsSweep({ db: brokenDb, clock, log: (line) => lines.push(line) });
  await nextTurn();
  stop();
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^statistics: day sweep failed, tried again in a minute: Error: database is locked\n\s+at /);
});

test('the rate limits pass requests uncounted on a failing database and log why with the stack', () => {
  const lines: string[] = [];
  const store = createLimitStore(brokenDb, { log: (line) => lines.push(line) });
  const counter = store.account('create/60', 1, { limit: 1, windowSeconds: 60 });
  assert.equal(store.hit([counter], clock.now(), true), 0);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^rate limits: database failed, requests pass uncounted: Error: database is locked\n\s+at /);
});
