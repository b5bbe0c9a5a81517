import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { movableClock } from '../../lib/clock.ts';
import { loadConfig } from '../../lib/config.ts';
import { openDb, type Db } from '../../lib/db/db.ts';
import type { PreviewClient } from '../../lib/outgoing/client.ts';
import { runPreviewJob } from '../../lib/preview/queue.ts';
import {
  claimPreviewJob,
  jobLeaseSeconds,
  maxJobAttempts,
  queueEntryLinks,
  queuePreviewIfDue,
  queueStalePreviews,
  releasePreviewJob,
  removeUnusedPreviews,
  savePreview,
  savePreviewFailure,
} from '../../lib/preview/store.ts';
import { day, member, post, startBoard, eventually, emptyFolder } from '../helpers.ts';
import { answer, page, previewEnv, previewRow, startFakeSite } from '../helpers/previews.ts';

/** The queue's bookkeeping in SQLite: leases, give-ups, the daily sweep, the backfill selection. */

const now = 1_800_000_000;
let dir: string;
let db: Db;

function jobs(): { url: string; not_before: number; attempts: number }[] {
  return db.all('SELECT url, not_before, attempts FROM preview_jobs ORDER BY url');
}

function addEntry(link: string, deleted = 0): void {
  db.run(
    'INSERT INTO entries (uid, created_at, root, depth, last_activity, link, deleted) VALUES (1, ?, 0, 0, ?, ?, ?)',
    now,
    now,
    link,
    deleted,
  );
}

function record(url: string, fetchedAt: number, failedAt = 0, thumb = ''): void {
  db.run(
    'INSERT INTO previews (url, title, thumb, fetched_at, failed_at) VALUES (?, ?, ?, ?, ?)',
    url,
    fetchedAt ? 'T' : '',
    thumb,
    fetchedAt,
    failedAt,
  );
}

beforeEach(() => {
  dir = emptyFolder('board-test-');
  db = openDb(join(dir, 'board.db'));
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('jobs', () => {
  test('a claimed job is leased: nobody else gets it until the lease runs out', () => {
    queuePreviewIfDue(db, 'https://a.example/', now);
    queuePreviewIfDue(db, 'https://b.example/', now + 1);
    assert.deepEqual(claimPreviewJob(db, now + 2), { url: 'https://a.example/', attempts: 1 });
    assert.deepEqual(claimPreviewJob(db, now + 2), { url: 'https://b.example/', attempts: 1 });
    assert.equal(claimPreviewJob(db, now + 2), undefined);
    assert.deepEqual(claimPreviewJob(db, now + 2 + jobLeaseSeconds), { url: 'https://a.example/', attempts: 2 });
  });

  test('a released job is due at once and its attempt does not count', () => {
    queuePreviewIfDue(db, 'https://a.example/', now);
    claimPreviewJob(db, now);
    releasePreviewJob(db, 'https://a.example/');
    assert.deepEqual(claimPreviewJob(db, now), { url: 'https://a.example/', attempts: 1 });
  });

  test('one job per link, however often it is queued', () => {
    for (let i = 0; i < 3; i++) queuePreviewIfDue(db, 'https://a.example/', now + i);
    assert.equal(jobs().length, 1);
  });

  test('a fresh or recently failed record queues nothing', () => {
    record('https://fresh.example/', now - 29 * day);
    record('https://failed.example/', 0, now - day + 1);
    assert.equal(queuePreviewIfDue(db, 'https://fresh.example/', now), false);
    assert.equal(queuePreviewIfDue(db, 'https://failed.example/', now), false);
    assert.deepEqual(jobs(), []);
  });

  test(`a job that was claimed ${maxJobAttempts} times without finishing is given up without a fetch`, async () => {
    queuePreviewIfDue(db, 'https://crashy.example/', now);
    let job = claimPreviewJob(db, now)!;
    for (let i = 0; i < maxJobAttempts; i++) job = claimPreviewJob(db, now + (i + 1) * jobLeaseSeconds)!;
    assert.equal(job.attempts, maxJobAttempts + 1);
    const client: PreviewClient = { get: () => assert.fail('no fetch for a given-up job'), close: async () => {} };
    const logs: string[] = [];
    const config = loadConfig({ BOARD_DATA: dir });
    const outcome = await runPreviewJob(
      {
        db,
        config,
        clock: movableClock(now),
        log: (l) => logs.push(l),
        client,
        images: { previewThumbnail: () => assert.fail('no thumbnail for a given-up job') },
      },
      job,
      new AbortController().signal,
    );
    assert.equal(outcome, 'failed');
    assert.deepEqual(jobs(), []);
    assert.equal(
      db.one<{ failed_at: number }>('SELECT failed_at FROM previews WHERE url = ?', 'https://crashy.example/')!
        .failed_at,
      now,
    );
    assert.match(logs.join('\n'), /given up/);
  });

  test('a failed refresh keeps the usable record', () => {
    savePreview(db, { url: 'https://a.example/', kind: 'page', title: 'Kept', site: 'a', thumb: 'preview/x.jpg' }, now);
    savePreviewFailure(db, 'https://a.example/', now + 31 * day);
    const row = db.one<{ title: string; thumb: string; failed_at: number }>(
      'SELECT title, thumb, failed_at FROM previews',
    )!;
    assert.deepEqual(row, { title: 'Kept', thumb: 'preview/x.jpg', failed_at: now + 31 * day });
  });

  test('a new record reports the thumbnail it replaced', () => {
    assert.equal(
      savePreview(
        db,
        { url: 'https://a.example/', kind: 'page', title: 'One', site: 'a', thumb: 'preview/1.jpg' },
        now,
      ),
      '',
    );
    assert.equal(
      savePreview(
        db,
        { url: 'https://a.example/', kind: 'page', title: 'Two', site: 'a', thumb: 'preview/2.jpg' },
        now,
      ),
      'preview/1.jpg',
    );
  });
});

describe('daily sweep and backfill', () => {
  test('the sweep queues records older than 30 days that a live entry still links to', () => {
    record('https://stale-used.example/', now - 30 * day);
    record('https://fresh-used.example/', now - 29 * day);
    record('https://stale-unused.example/', now - 40 * day);
    record('https://failed-long-ago.example/', 0, now - 31 * day);
    for (const url of [
      'https://stale-used.example/',
      'https://fresh-used.example/',
      'https://failed-long-ago.example/',
    ])
      addEntry(url);
    assert.equal(queueStalePreviews(db, now), 2);
    assert.deepEqual(
      jobs().map((j) => j.url),
      ['https://failed-long-ago.example/', 'https://stale-used.example/'],
    );
  });

  test('records no entry uses any more are removed after 30 days, with their thumbnails', () => {
    record('https://old-unused.example/', now - 31 * day, 0, 'preview/old.jpg');
    record('https://new-unused.example/', now - day, 0, 'preview/new.jpg');
    record('https://old-used.example/', now - 31 * day, 0, 'preview/used.jpg');
    addEntry('https://old-used.example/');
    assert.deepEqual(removeUnusedPreviews(db, now), ['preview/old.jpg']);
    assert.deepEqual(
      db.all<{ url: string }>('SELECT url FROM previews ORDER BY url').map((r) => r.url),
      ['https://new-unused.example/', 'https://old-used.example/'],
    );
  });

  test('backfill queues links without a record or older than 30 days; --all queues every live link', () => {
    addEntry('https://none.example/');
    addEntry('https://none.example/');
    addEntry('https://stale.example/');
    addEntry('https://fresh.example/');
    addEntry('https://recently-failed.example/');
    addEntry('', 0);
    record('https://stale.example/', now - 31 * day);
    record('https://fresh.example/', now - day);
    record('https://recently-failed.example/', 0, now - 3600);
    assert.equal(queueEntryLinks(db, now, false), 2);
    assert.deepEqual(
      jobs().map((j) => j.url),
      ['https://none.example/', 'https://stale.example/'],
    );
    assert.equal(queueEntryLinks(db, now, true), 2);
    assert.equal(jobs().length, 4);
  });
});

describe('the server', () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    // Last in, first out: the board stops before its data folder goes.
    for (const fn of cleanup.reverse()) await fn();
  });

  test('re-fetches stale records in use when it starts (the daily sweep)', async () => {
    const site = await startFakeSite({ '/news': answer(page('<title>Version one</title>')) });
    const dataDir = emptyFolder('board-test-');
    cleanup.push(site.close, async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = previewEnv([site.port]);
    const url = site.url('/news');

    const first = await startBoard(env, { dataDir });
    await post(await member(first, 'frank'), url);
    await eventually('the first record', () => previewRow(first, url)?.title);
    first.app.services.db.run('UPDATE previews SET fetched_at = fetched_at - ? WHERE url = ?', 31 * day, url);
    await first.close();

    site.route('/news', answer(page('<title>Version two</title>')));
    const second = await startBoard(env, { dataDir });
    cleanup.push(second.close);
    assert.equal(
      await eventually('the refreshed record', () =>
        previewRow(second, url)?.title === 'Version two' ? 'yes' : undefined,
      ),
      'yes',
    );
  });
});
