import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { password, SoftAuthenticator } from '../helpers.ts';
import { startCluster, type ClusterBoard } from '../helpers/cluster-board.ts';

/**
 * Per-process state with two worker processes on one database (issue 18): the limits hold the
 * two together to 1×, and a visitor seen by both counts once; after a graceful stop the totals
 * are exact.
 */
describe('two workers, one database: limits, impressions', () => {
  let board: ClusterBoard;
  before(async () => {
    board = await startCluster({ BOARD_LIMITS: '1', BOARD_NEW_ACCOUNT_HOURS: '0', BOARD_SCRYPT_LOGN: '15' });
  });
  after(() => board.close());

  test('the primary runs the background jobs, once; no worker does', () => {
    const lines = board.child
      .output()
      .split('\n')
      .filter((line) => line.includes('runs the background jobs'));
    assert.deepEqual(lines, [
      `board: primary (pid ${board.child.process.pid}) runs the background jobs: housekeeping, accountRemoval, searchBackfill, threadReplies, push, statisticsSweep, WAL checkpoints`,
    ]);
  });

  test('a per-address limit (20 reset checks a minute) holds for both workers together', async () => {
    const [one, two] = [await board.clientOn('1', '203.0.113.7'), await board.clientOn('2', '203.0.113.7')];
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await (i % 2 ? two : one).post('/api/auth/reset/check', { token: 'x'.repeat(43) })).status);
    assert.equal(statuses.filter((s) => s !== 429).length, 20, statuses.join(' '));
    assert.ok(statuses.slice(20).every((s) => s === 429));
  });

  test('a write limit per account (6 creates a minute) holds for both workers together', async () => {
    const [one, two] = [await board.clientOn('1', '203.0.113.8'), await board.clientOn('2', '203.0.113.9')];
    assert.equal(
      (await one.post('/api/auth/newuser', { user: 'Zwei Prozesse', pass1: password, pass2: password })).status,
      201,
    );
    assert.equal((await one.post('/api/auth/login', { user: 'Zwei Prozesse', pass: password })).status, 200);
    two.cookie = one.cookie; // the same session on the other worker
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await (i % 2 ? two : one).post('/api/entry/create', { content: `Beitrag Nummer ${i}` })).status);
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 201, 429, 429, 429, 429]);
  });

  test('a visitor seen by both workers counts once, the per-address cap holds for both; totals exact after SIGTERM', async () => {
    const [one, two] = [await board.clientOn('1', '198.51.100.5'), await board.clientOn('2', '198.51.100.5')];
    let impressions = 0;
    // A page view: its GET, answered by the worker that holds the connection.
    const page = async (client: typeof one, agent: string) => {
      assert.equal((await client.get('/', { 'user-agent': agent })).status, 200);
      impressions++;
    };
    for (let i = 0; i < 3; i++) {
      await page(one, 'Browser A');
      await page(two, 'Browser A');
    }
    // Five more browsers from the same address, spread over both workers: the address brings 3 visitors at most.
    for (let i = 0; i < 5; i++) await page(i % 2 ? one : two, `Browser ${'BCDEF'[i]}`);
    // Another address: one visitor, seen by both workers.
    const [three, four] = [await board.clientOn('1', '198.51.100.6'), await board.clientOn('2', '198.51.100.6')];
    await page(three, 'Browser G');
    await page(four, 'Browser G');

    assert.equal(await board.stop(), 0);
    const db = new Database(join(board.dataDir, 'board.db'), { readonly: true });
    try {
      const counter = (name: string) =>
        (db.prepare('SELECT value FROM counters WHERE name = ?').get(name) as { value: number }).value;
      assert.equal(counter('impressions'), impressions);
      assert.equal(counter('visitors'), 4, 'three from the first address, one from the second');
      const today = db.prepare('SELECT impressions, visitors FROM daily_stats').all();
      assert.deepEqual(today, [{ impressions, visitors: 4 }]);
      assert.equal((db.prepare('SELECT count(*) AS n FROM visitor_hashes').get() as { n: number }).n, 4);
    } finally {
      db.close();
    }
  });
});

/**
 * The machine's hashing slots (issue 18), and what a ban stops (issue 28), with two workers. This
 * cluster's hashing line has no bound (BOARD_LIMITS=0): how long twelve hashes take is the
 * machine's business, so the line's 5 s wait must not decide the answers. The line's bounds have
 * tests of their own with a gate: test/unit/semaphore.test.ts and test/unit/cluster-slots.test.ts.
 */
describe("two workers, one database: the machine's hashing slots, a banned account", () => {
  let board: ClusterBoard;
  before(async () => {
    board = await startCluster({ BOARD_LIMITS: '0', BOARD_SCRYPT_LOGN: '15' });
  });
  after(() => board.close());

  test('password hashing: logins through both workers at once never run more than two hashes on the machine', async () => {
    const registrar = await board.clientOn('1', '203.0.113.10');
    const names = Array.from({ length: 6 }, (_, i) => `Hasher ${i}`);
    for (const name of names)
      assert.equal(
        (
          await registrar.post(
            '/api/auth/newuser',
            { user: name, pass1: password, pass2: password },
            { 'x-forwarded-for': `203.0.113.${20 + names.indexOf(name)}` },
          )
        ).status,
        201,
      );
    const clients = await Promise.all(
      Array.from({ length: 12 }, (_, i) => board.clientOn(i % 2 ? '2' : '1', `203.0.113.${40 + i}`)),
    );
    const answers = await Promise.all(
      clients.map((client, i) => client.post('/api/auth/login', { user: names[i % names.length], pass: password })),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(12).fill(200),
    );
    const series = await board.scrape();
    const loginsOn = (worker: string) =>
      series.get(
        `board_http_request_duration_seconds_count{route="/api/auth/login",method="POST",status="2xx",worker="${worker}"}`,
      ) ?? 0;
    assert.ok(loginsOn('1') >= 6 && loginsOn('2') >= 6, 'both workers hashed');
    assert.equal(
      series.get('board_machine_slots_peak{pool="hash"}'),
      2,
      'two at once at most, and the bound was reached',
    );
  });

  test("a ban written by another connection: neither worker honours the account's session or its private feed while it lasts", async () => {
    const [one, two] = [await board.clientOn('1', '203.0.113.60'), await board.clientOn('2', '203.0.113.61')];
    assert.equal(
      (await one.post('/api/auth/newuser', { user: 'Gesperrt', pass1: password, pass2: password })).status,
      201,
    );
    assert.equal((await one.post('/api/auth/login', { user: 'Gesperrt', pass: password })).status, 200);
    two.cookie = one.cookie;
    const feed = new URL((await one.post('/api/user/feed-token')).body.url).pathname;
    const setBan = (until: number) => {
      const db = new Database(join(board.dataDir, 'board.db'));
      try {
        // The state the review found: a ban beside a live session row (nothing here deletes it).
        db.prepare('UPDATE users SET banned_until = ? WHERE username = ?').run(until, 'Gesperrt');
      } finally {
        db.close();
      }
    };
    setBan(-1);
    for (const client of [one, two]) {
      const info = await client.get('/api/user/info');
      assert.equal(info.status, 401, info.text);
      assert.equal(info.body.error.code, 'auth.required');
      assert.equal((await client.get(feed)).status, 404);
    }
    setBan(0);
    for (const client of [one, two]) {
      assert.equal((await client.get('/api/user/info')).status, 200);
      assert.equal((await client.get(feed)).status, 200);
    }
  });

  test('a passkey challenge made by one worker is taken by the other, and only once', async () => {
    const [one, two] = [await board.clientOn('1', '203.0.113.70'), await board.clientOn('2', '203.0.113.71')];
    assert.equal(
      (await one.post('/api/auth/newuser', { user: 'Schlüssel', pass1: password, pass2: password })).status,
      201,
    );
    assert.equal((await one.post('/api/auth/login', { user: 'Schlüssel', pass: password })).status, 200);
    two.cookie = one.cookie;
    // BOARD_ORIGIN is the default, http://localhost:<the port the cluster listens on>.
    const authenticator = new SoftAuthenticator(`http://localhost:${new URL(board.url).port}`);
    const options = await one.post('/api/user/passkeys/options', { pass1: password });
    assert.equal(options.status, 200, options.text);
    const added = await two.post('/api/user/passkeys', {
      name: 'Handy',
      credential: JSON.stringify(authenticator.create(options.body)),
    });
    assert.equal(added.status, 201, added.text);

    const [three, four] = [await board.clientOn('2', '203.0.113.72'), await board.clientOn('1', '203.0.113.73')];
    const signIn = await three.post('/api/auth/passkey/options');
    const credential = JSON.stringify(authenticator.get(signIn.body));
    assert.equal((await four.post('/api/auth/passkey/login', { credential })).status, 200);
    assert.equal((await four.get('/api/user/info')).body.username, 'Schlüssel');
    assert.equal(
      (await three.post('/api/auth/passkey/login', { credential })).status,
      401,
      'a replay on the other worker',
    );
  });
});
