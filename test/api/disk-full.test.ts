import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Images } from '../../lib/media/images.ts';
import { messages } from '../../lib/messages.ts';
import { assertError, imageFixture, limitsOff, mediaFiles, useBoard } from '../helpers.ts';

/*
 * Issue 33: a full disk is seen. Every gate here is the test's own: SQLite's max_page_count on the
 * board's own connection makes the real database answer SQLITE_FULL ("database or disk is full")
 * at the real insert; an image service that fails with ENOSPC stands in for a full media folder;
 * the data volume's free bytes are a number the test sets; the clock moves only when told.
 */
const mebibyte = 2 ** 20;
let free = 100_000 * mebibyte;
let mediaFull = false;
const images = (sharp: Images): Images => ({
  ...sharp,
  async entry(data) {
    if (mediaFull) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return sharp.entry(data);
  },
});

describe('a full data volume', () => {
  const t = useBoard({
    env: { ...limitsOff, BOARD_DISK_LOW_MB: '200', BOARD_METRICS_PORT: '0' },
    start: { images, freeBytes: () => free },
    members: ['Anna'],
  });
  const health = () => t.board.client().get('/api/health');
  const diskLines = () => t.board.logs.filter((line) => line.startsWith('disk full:'));
  const create = (content: string, image?: Buffer) =>
    image
      ? t.members.Anna.postMultipart('/api/entry/create', { content }, [
          { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
        ])
      : t.members.Anna.post('/api/entry/create', { content });

  test('a write SQLite refuses for lack of space answers 507 server.disk_full in German, leaves no row and no file, and logs one line a minute with the count', async () => {
    const { db } = t.board.app.services;
    const image = await imageFixture();
    assert.equal((await create('vorher')).status, 201);
    const entries = () => db.one<{ n: number }>('SELECT count(*) AS n FROM entries')!.n;
    const pages = db.raw.pragma('page_count', { simple: true }) as number;
    db.raw.pragma(`max_page_count = ${pages}`); // the gate: not one page more than now
    const text = (i: number) => `${'voll '.repeat(150)}${String(i).padStart(4, '0')}`;
    try {
      // Creates fill what room the pages have left, until one needs a new page.
      let first: Awaited<ReturnType<typeof create>> | undefined;
      for (let i = 0; i < 500 && !first; i++) {
        const answer = await create(text(i));
        if (answer.status !== 201) first = answer;
      }
      assert.ok(first, 'the database filled up');
      assertError(first, 507, 'server.disk_full', { exact: true });
      assert.equal(first.body.error.message, messages['server.disk_full']);
      const before = { entries: entries(), media: mediaFiles(t.board) };
      for (let i = 1; i < 5; i++)
        assertError(await create(text(1000 + i), i % 2 ? image : undefined), 507, 'server.disk_full', { exact: true });
      assert.equal(entries(), before.entries, 'no row');
      assert.deepEqual(mediaFiles(t.board), before.media, 'no image left behind');
      assert.equal(diskLines().length, 1, t.board.logs.join('\n'));
      assert.match(diskLines()[0]!, /^disk full: 1 write refused for lack of space .*\(97\.7 GiB free in /);
      assert.ok(!t.board.logs.some((line) => /SqliteError|\n\s+at /.test(line)), 'no stack in the log');

      const degraded = await health();
      assert.equal(degraded.status, 503);
      assert.deepEqual(degraded.body, { status: 'degraded', problems: ['disk_full'] });

      // A minute on: the next refusal writes the second line, with the four held back and itself.
      t.board.clock.advance(61);
      assert.equal((await health()).status, 200, 'no refusal in the last minute: ok again');
      assertError(await create(text(2000)), 507, 'server.disk_full');
      assert.equal(diskLines().length, 2);
      assert.match(diskLines()[1]!, /^disk full: 5 writes refused for lack of space since the last such line/);
    } finally {
      db.raw.pragma('max_page_count = 4294967294');
    }
    assert.equal((await create('wieder Platz')).status, 201, 'space again: writes work');
    t.board.clock.advance(61);
    assert.deepEqual((await health()).body, { status: 'ok' });
  });

  test('an image that cannot be written for lack of space answers 507 too', async () => {
    mediaFull = true;
    try {
      assertError(await create('Bild', await imageFixture()), 507, 'server.disk_full', { exact: true });
      assert.deepEqual((await health()).body, { status: 'degraded', problems: ['disk_full'] });
    } finally {
      mediaFull = false;
    }
    t.board.clock.advance(61);
    assert.equal((await health()).status, 200);
  });

  test('a start with room enough says nothing about the disk', () => {
    assert.deepEqual(
      t.board.logs.filter((line) => line.startsWith('disk low:')),
      [],
    );
  });

  test('/api/health is degraded while free space is under BOARD_DISK_LOW_MB, before any write fails', async () => {
    free = 199 * mebibyte;
    const low = await health();
    assert.equal(low.status, 503);
    assert.deepEqual(low.body, { status: 'degraded', problems: ['disk_low'] });
    assert.equal(low.headers.get('cache-control'), 'no-store');
    free = 200 * mebibyte;
    assert.deepEqual((await health()).body, { status: 'ok' });
  });

  test('the metrics show the free bytes of the data volume and the bytes of each media folder', async () => {
    assert.equal((await create('mit Bild', await imageFixture({ width: 120, height: 90 }))).status, 201);
    const text = await (await fetch(`${t.board.metricsUrl}/metrics`)).text();
    const sample = (series: string) => {
      const match = new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
      assert.ok(match, `${series} in\n${text.slice(0, 400)}`);
      return Number(match[1]);
    };
    assert.equal(sample('board_data_volume_free_bytes'), free);
    const folder = join(t.board.config.mediaDir, 'e');
    const bytes = readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
    assert.ok(bytes > 0);
    assert.equal(sample('board_media_bytes{folder="e"}'), bytes);
    assert.equal(sample('board_media_bytes{folder="a"}'), 0);
    assert.equal(sample('board_media_bytes{folder="preview"}'), 0);
  });
});

describe('a board that starts on a nearly full volume', () => {
  const kibibytes = 416; // what df showed on the small volume: "0 MiB" in the old line
  const t = useBoard({
    start: { images, freeBytes: () => kibibytes * 1024 },
    members: ['Anna'],
  });

  test('the start says so in one line, as /api/health does from the first second, with the free space in KiB', async () => {
    const lines = t.board.logs.filter((line) => line.startsWith('disk low:'));
    assert.deepEqual(lines, [
      `disk low: ${kibibytes} KiB free in ${t.board.config.dataDir}, less than BOARD_DISK_LOW_MB=500: /api/health answers 503 with disk_low until there is more room`,
    ]);
    assert.deepEqual((await t.board.client().get('/api/health')).body, { status: 'degraded', problems: ['disk_low'] });
  });

  test('the line of a refused write gives the free space in KiB, not "0 MiB"', async () => {
    mediaFull = true;
    try {
      const answer = await t.members.Anna.postMultipart('/api/entry/create', { content: 'Bild' }, [
        { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: await imageFixture() },
      ]);
      assertError(answer, 507, 'server.disk_full', { exact: true });
    } finally {
      mediaFull = false;
    }
    const lines = t.board.logs.filter((line) => line.startsWith('disk full:'));
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.includes(`(${kibibytes} KiB free in ${t.board.config.dataDir})`), lines[0]);
  });
});

describe('BOARD_DISK_LOW_MB=0', () => {
  const t = useBoard({ env: { BOARD_DISK_LOW_MB: '0' }, start: { freeBytes: () => 1024 } });

  test('turns the low-space check off: no line at the start, /api/health ok', async () => {
    assert.ok(!t.board.logs.some((line) => line.startsWith('disk low:')), t.board.logs.join('\n'));
    assert.deepEqual((await t.board.client().get('/api/health')).body, { status: 'ok' });
  });
});
