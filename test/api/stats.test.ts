import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { flushImpressions } from '../../lib/stats/impressions.ts';
import {
  assertDocumented,
  accountRemovalDone,
  assertError,
  member,
  password,
  post,
  startProxiedBoard,
  useBoard,
  type TestBoard,
  emptyFolder,
} from '../helpers.ts';

/** 2026-03-10 12:00 UTC: a fixed "today", so day strings are known. */
const noon = Date.parse('2026-03-10T12:00:00Z') / 1000;
const browser = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

/**
 * A page (or any path) as a browser asks for it, from an address and user agent of our choosing:
 * a page that carries the view beacon (BOARD_IMPRESSION_BEACON=1) runs the front end, which sends
 * it (web/static/app.js countPageView), so the board, not this helper, decides what counts. Every
 * answer is checked against the OpenAPI document.
 */
async function view(board: TestBoard, path: string, ip: string, userAgent = browser) {
  const client = board.client({ ip });
  const answer = await client.get(path, { 'user-agent': userAgent });
  assertDocumented(answer);
  if (answer.text.includes('<noscript id="view-beacon">')) {
    const beacon = await client.post('/api/impression', { page: path.split('?')[0]! }, { 'user-agent': userAgent });
    assert.equal(beacon.status, 200, beacon.text);
    assertDocumented(beacon);
  }
  return answer;
}

async function detail(board: TestBoard) {
  const answer = await board.client().get('/api/stats/detail');
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return answer.body;
}

function today(body: { daily: { day: string; impressions: number; visitors: number }[] }) {
  return body.daily.at(-1)!;
}

function storedDay(board: TestBoard, day: string) {
  return board.app.services.db.one<{ impressions: number; visitors: number }>(
    'SELECT impressions, visitors FROM daily_stats WHERE day = ?',
    day,
  );
}

describe('GET /api/stats and /api/stats/detail: counts', () => {
  const t = useBoard();

  async function counts() {
    const summary = await t.board.client().get('/api/stats');
    assert.equal(summary.status, 200, summary.text);
    assertDocumented(summary);
    const full = await detail(t.board);
    assert.deepEqual(summary.body, { users: full.users, entries: full.entries });
    return {
      users: full.users,
      entries: full.entries,
      toplevel: full.toplevel,
      replies: full.replies,
      votes: full.votes,
    };
  }

  test("an empty board counts zeros, in the spec's shapes", async () => {
    const summary = await t.board.client().get('/api/stats');
    assert.deepEqual(summary.body, { users: 0, entries: 0 });
    assert.equal(summary.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = await detail(t.board);
    assert.deepEqual(
      Object.keys(body).sort(),
      [
        'daily',
        'entries',
        'impressions_total',
        'replies',
        'top_asns',
        'toplevel',
        'users',
        'visitors_total',
        'votes',
      ].sort(),
    );
    assert.deepEqual(body.votes, { yes: 0, no: 0 });
    assert.equal(body.impressions_total, 0);
    assert.equal(body.visitors_total, 0);
    assert.equal(body.daily.length, 30);
    assert.deepEqual(body.top_asns, []);
  });

  test('registrations, entries, replies, votes and deletions move the counts', async () => {
    const ann = await member(t.board, 'ann');
    const bob = await member(t.board, 'bob');
    assert.deepEqual(await counts(), { users: 2, entries: 0, toplevel: 0, replies: 0, votes: { yes: 0, no: 0 } });

    const top = await post(ann, 'a thread');
    const reply = await post(bob, 'a reply', top);
    const second = await post(bob, 'another thread');
    assert.deepEqual(await counts(), { users: 2, entries: 3, toplevel: 2, replies: 1, votes: { yes: 0, no: 0 } });

    assert.equal((await ann.post(`/api/entry/${reply}/vote`, { mode: 'yes' })).status, 200);
    assert.equal((await bob.post(`/api/entry/${top}/vote`, { mode: 'no' })).status, 200);
    assert.equal((await ann.post(`/api/entry/${second}/vote`, { mode: 'no' })).status, 200);
    assert.deepEqual((await counts()).votes, { yes: 1, no: 2 });
    // Repeating a vote withdraws it; switching moves it.
    assert.equal((await ann.post(`/api/entry/${second}/vote`, { mode: 'no' })).status, 200);
    assert.equal((await bob.post(`/api/entry/${top}/vote`, { mode: 'yes' })).status, 200);
    assert.deepEqual((await counts()).votes, { yes: 2, no: 0 });

    assert.equal((await bob.post(`/api/entry/${reply}/delete`)).status, 200);
    assert.deepEqual(await counts(), { users: 2, entries: 2, toplevel: 2, replies: 0, votes: { yes: 2, no: 0 } });

    // Deleting bob's account removes his live thread and his vote on ann's thread.
    assert.equal((await bob.post('/api/user/delete', { pass1: password })).status, 200);
    await accountRemovalDone(t.board);
    assert.deepEqual(await counts(), { users: 1, entries: 1, toplevel: 1, replies: 0, votes: { yes: 0, no: 0 } });
  });
});

/** How far an action moves the board's impression and visitor totals (today's item in daily with them). */
async function delta(
  board: TestBoard,
  action: () => Promise<unknown>,
): Promise<{ impressions: number; visitors: number }> {
  const was = await detail(board);
  await action();
  const now = await detail(board);
  const moved = {
    impressions: now.impressions_total - was.impressions_total,
    visitors: now.visitors_total - was.visitors_total,
  };
  // Everything happens today, so today's item in daily moves by the same amounts.
  assert.equal(today(now).day, '2026-03-10');
  assert.deepEqual(
    {
      impressions: today(now).impressions - today(was).impressions,
      visitors: today(now).visitors - today(was).visitors,
    },
    moved,
  );
  return moved;
}

describe('impressions and visitors', () => {
  const t = useBoard();
  let pid: number;
  before(async () => {
    t.board.clock.set(noon);
    const ann = await member(t.board, 'ann');
    pid = await post(ann, 'hello');
  });

  test('each page view of /, /e/{pid} and /u/{username} is one impression; a visitor counts once a day', async () => {
    assert.deepEqual(
      await delta(t.board, async () => {
        assert.equal((await view(t.board, '/', '198.51.100.1')).status, 200);
        assert.equal((await view(t.board, `/e/${pid}`, '198.51.100.1')).status, 200);
        assert.equal((await view(t.board, '/u/ann', '198.51.100.1')).status, 200);
        assert.equal((await view(t.board, '/', '198.51.100.1')).status, 200);
      }),
      { impressions: 4, visitors: 1 },
    );
  });

  test('distinct (IP, User-Agent) pairs are distinct visitors; repeated pairs are not', async () => {
    assert.deepEqual(
      await delta(t.board, async () => {
        await view(t.board, '/', '198.51.100.2');
        await view(t.board, '/', '198.51.100.2', 'Mozilla/5.0 (Android 15) Chrome/140.0');
        await view(t.board, '/', '2001:db8::2');
        await view(t.board, '/', '198.51.100.2');
        await view(t.board, '/', '2001:db8::2');
      }),
      { impressions: 5, visitors: 3 },
    );
  });

  test('bot-like user agents count nothing', async () => {
    const bots = [
      'Googlebot/2.1 (+http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0)',
      'Yahoo! Slurp',
      'SomeCrawler/1.0',
      'Baiduspider',
      'WhatsApp link PREVIEW',
      'facebookexternalhit/1.1 Preview',
    ];
    assert.deepEqual(
      await delta(t.board, async () => {
        for (const ua of bots) assert.equal((await view(t.board, '/', '198.51.100.3', ua)).status, 200);
      }),
      { impressions: 0, visitors: 0 },
    );
  });

  test('API, static, other views, 404 pages and HEAD requests count nothing', async () => {
    assert.deepEqual(
      await delta(t.board, async () => {
        const ip = '198.51.100.4';
        assert.equal((await view(t.board, '/api/entry/feed/0', ip)).status, 200);
        assert.equal((await view(t.board, `/api/entry/${pid}/thread`, ip)).status, 200);
        assert.equal((await view(t.board, '/api/stats', ip)).status, 200);
        assert.equal((await view(t.board, '/static/no-such-file.js', ip)).status, 404);
        assert.equal((await view(t.board, '/static/media/no-such.jpg', ip)).status, 404);
        for (const path of ['/login', '/register', '/settings', '/stats', '/reset', '/mod', '/modlog'])
          assert.equal((await view(t.board, path, ip)).status, 200, path);
        assert.equal((await view(t.board, '/e/999999', ip)).status, 404);
        assert.equal((await view(t.board, '/e/abc', ip)).status, 404);
        assert.equal((await view(t.board, '/u/nobody-here', ip)).status, 404);
        assert.equal((await view(t.board, '/no/such/page', ip)).status, 404);
        const head = await t.board.client({ ip }).send('HEAD', '/', undefined, { 'user-agent': browser });
        assert.equal(head.status, 200);
      }),
      { impressions: 0, visitors: 0 },
    );
  });

  test('counts are in the answer before and after they are flushed to the database', async () => {
    const before = await detail(t.board);
    flushImpressions(t.board.app.services);
    assert.equal(t.board.app.services.impressions.pending.size, 0);
    assert.deepEqual(await detail(t.board), before);
    assert.deepEqual(storedDay(t.board, '2026-03-10'), {
      impressions: before.impressions_total,
      visitors: before.visitors_total,
    });
    const counters = t.board.app.services.db.all<{ name: string; value: number }>(
      "SELECT name, value FROM counters WHERE name IN ('impressions', 'visitors') ORDER BY name",
    );
    assert.deepEqual(counters, [
      { name: 'impressions', value: before.impressions_total },
      { name: 'visitors', value: before.visitors_total },
    ]);
  });
});

describe('the daily visitor cap', () => {
  const t = useBoard({ start: { impressions: { maxVisitorsPerDay: 2 } } });
  before(async () => {
    t.board.clock.set(noon);
    await view(t.board, '/', '198.51.100.1'); // the day's first visitor; room for one more
  });

  test('past the daily cap, new visitors are not counted (impressions still are)', async () => {
    assert.deepEqual(
      await delta(t.board, async () => {
        for (let i = 0; i < 3; i++) await view(t.board, '/', '198.51.100.5', `Agent ${i}`);
        await view(t.board, '/', '198.51.100.1'); // seen before: still one visitor
      }),
      { impressions: 4, visitors: 1 },
    );
    assert.equal(t.board.logs.filter((line) => line.includes('more are not counted as visitors')).length, 1);
  });
});

describe('daily', () => {
  const t = useBoard();

  test("30 days ending today, oldest first, zero-filled, with today's counts", async () => {
    t.board.clock.set(noon);
    const db = t.board.app.services.db;
    // One stored day just inside the window and one just outside it.
    db.run(
      'INSERT INTO daily_stats (day, impressions, visitors) VALUES (?, ?, ?), (?, ?, ?)',
      '2026-02-09',
      7,
      3,
      '2026-02-08',
      99,
      99,
    );
    await view(t.board, '/', '198.51.100.10');
    await view(t.board, '/', '198.51.100.11');
    await view(t.board, '/', '198.51.100.11');
    const { daily } = await detail(t.board);
    assert.equal(daily.length, 30);
    assert.deepEqual(daily[0], { day: '2026-02-09', impressions: 7, visitors: 3 });
    assert.deepEqual(daily[29], { day: '2026-03-10', impressions: 3, visitors: 2 });
    // Every day in between, across the end of February, once and in order, with zeros.
    const expected = Array.from({ length: 28 }, (_, i) =>
      new Date(Date.UTC(2026, 1, 10 + i)).toISOString().slice(0, 10),
    );
    assert.deepEqual(
      daily.slice(1, 29).map((d: { day: string }) => d.day),
      expected,
    );
    assert.equal(expected.at(-1), '2026-03-09');
    assert.ok(expected.includes('2026-02-28') && expected.includes('2026-03-01') && !expected.includes('2026-02-29'));
    for (const d of daily.slice(1, 29)) assert.deepEqual([d.impressions, d.visitors], [0, 0]);
  });

  test('visitors_total is all-time: stored days outside the window still count through the counter', async () => {
    const db = t.board.app.services.db;
    db.run("UPDATE counters SET value = value + 102 WHERE name = 'visitors'");
    const body = await detail(t.board);
    assert.equal(body.visitors_total, 102 + 2);
  });
});

describe('visitors per address (finding 8 of the abuse review)', () => {
  const t = useBoard();
  const agents = (n: number) => Array.from({ length: n }, (_, i) => `Mozilla/5.0 Probe/${i}`);

  test('300 views from one address with changing User-Agents count 300 impressions but 3 visitors; an IPv6 /64 is one address', async () => {
    t.board.clock.set(noon);
    const was = await detail(t.board);
    for (const ua of agents(300)) await view(t.board, '/', '198.51.100.60', ua);
    for (const [i, ua] of agents(10).entries()) await view(t.board, '/', `2001:db8:60:1::${i + 1}`, ua);
    await view(t.board, '/', '198.51.100.61', 'Mozilla/5.0 Probe/1');
    const now = await detail(t.board);
    assert.equal(now.impressions_total - was.impressions_total, 311);
    assert.equal(now.visitors_total - was.visitors_total, 3 + 3 + 1);
  });

  test('the count holds across a flush and a restart (kept as a daily HMAC of the address), and starts over the next day', async () => {
    flushImpressions(t.board.app.services);
    const rows = t.board.app.services.db.all<{ hash: Buffer; visitors: number }>(
      "SELECT hash, visitors FROM visitor_subjects WHERE day = '2026-03-10'",
    );
    assert.deepEqual(rows.map((r) => r.visitors).sort(), [1, 3, 3]);
    t.board.app.services.impressions.today = undefined; // as after a restart: today is read back from the database
    const was = await detail(t.board);
    await view(t.board, '/', '198.51.100.60', 'Mozilla/5.0 Probe/new');
    assert.equal((await detail(t.board)).visitors_total, was.visitors_total);
    t.board.clock.set(noon + 86_400);
    await view(t.board, '/', '198.51.100.60', 'Mozilla/5.0 Probe/new');
    assert.equal((await detail(t.board)).visitors_total, was.visitors_total + 1);
    flushImpressions(t.board.app.services);
    assert.deepEqual(
      t.board.app.services.db.all("SELECT day FROM visitor_subjects WHERE day < '2026-03-11'"),
      [],
      'gone with its day',
    );
  });

  describe('with BOARD_LIMITS=0', () => {
    const off = useBoard({ env: { BOARD_LIMITS: '0' } });

    test('there is no cap per address', async () => {
      off.board.clock.set(noon);
      for (const ua of agents(10)) await view(off.board, '/', '198.51.100.62', ua);
      assert.equal((await detail(off.board)).visitors_total, 10);
    });
  });
});

describe('the day rollover (UTC midnight)', () => {
  const t = useBoard();

  test("yesterday's counts stay; its visitor hashes and secret are deleted; the same visitor counts again", async () => {
    const db = t.board.app.services.db;
    t.board.clock.set(Date.parse('2026-03-10T23:59:00Z') / 1000);
    await view(t.board, '/', '198.51.100.20');
    await view(t.board, '/', '198.51.100.21');
    await view(t.board, '/', '198.51.100.21');
    flushImpressions(t.board.app.services);
    assert.equal(db.one<{ n: number }>("SELECT count(*) AS n FROM visitor_hashes WHERE day = '2026-03-10'")!.n, 2);
    const oldSecret = db.one<{ secret: Buffer }>("SELECT secret FROM daily_secrets WHERE day = '2026-03-10'")!.secret;
    assert.equal(oldSecret.length, 32);

    t.board.clock.advance(120); // 2026-03-11 00:01
    await view(t.board, '/', '198.51.100.20');
    await view(t.board, '/', '198.51.100.20');

    const body = await detail(t.board);
    assert.deepEqual(body.daily.slice(-2), [
      { day: '2026-03-10', impressions: 3, visitors: 2 },
      { day: '2026-03-11', impressions: 2, visitors: 1 },
    ]);
    assert.equal(body.visitors_total, 3);
    assert.equal(body.impressions_total, 5);

    flushImpressions(t.board.app.services);
    assert.deepEqual(storedDay(t.board, '2026-03-10'), { impressions: 3, visitors: 2 });
    assert.deepEqual(storedDay(t.board, '2026-03-11'), { impressions: 2, visitors: 1 });
    assert.deepEqual(db.all("SELECT day FROM visitor_hashes WHERE day < '2026-03-11'"), []);
    assert.deepEqual(db.all('SELECT day FROM daily_secrets'), [{ day: '2026-03-11' }]);
    const newSecret = db.value<Buffer>('SELECT secret FROM daily_secrets');
    assert.notDeepEqual(newSecret, oldSecret);
    assert.equal(db.one<{ n: number }>("SELECT count(*) AS n FROM visitor_hashes WHERE day = '2026-03-11'")!.n, 1);
  });

  test('a day with no traffic after midnight still loses its hashes and secret at the next flush', async () => {
    const db = t.board.app.services.db;
    t.board.clock.set(Date.parse('2026-03-12T10:00:00Z') / 1000);
    flushImpressions(t.board.app.services);
    assert.deepEqual(db.all('SELECT day FROM visitor_hashes'), []);
    assert.deepEqual(db.all('SELECT day FROM daily_secrets'), []);
    assert.deepEqual(storedDay(t.board, '2026-03-11'), { impressions: 2, visitors: 1 });
  });
});

describe('restarts', () => {
  const dataDir = emptyFolder('board-stats-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('close() writes the counts not yet flushed', async () => {
    const board = await startProxiedBoard({}, { dataDir });
    board.clock.set(noon);
    await view(board, '/', '198.51.100.30');
    await view(board, '/', '198.51.100.30');
    await board.close();
    const db = new Database(join(dataDir, 'board.db'), { readonly: true });
    try {
      assert.deepEqual(db.prepare("SELECT impressions, visitors FROM daily_stats WHERE day = '2026-03-10'").get(), {
        impressions: 2,
        visitors: 1,
      });
      assert.deepEqual(db.prepare("SELECT value FROM counters WHERE name = 'impressions'").get(), { value: 2 });
      assert.equal(
        (db.prepare("SELECT count(*) AS n FROM visitor_hashes WHERE day = '2026-03-10'").get() as { n: number }).n,
        1,
      );
    } finally {
      db.close();
    }
  });

  test('a restart on the same day does not count a visitor twice', async () => {
    const board = await startProxiedBoard({}, { dataDir });
    try {
      board.clock.set(noon + 3600);
      await view(board, '/', '198.51.100.30'); // seen before the restart
      await view(board, '/', '198.51.100.31'); // new
      const body = await detail(board);
      assert.deepEqual(today(body), { day: '2026-03-10', impressions: 4, visitors: 2 });
      assert.equal(body.visitors_total, 2);
    } finally {
      await board.close();
    }
  });

  test("after a restart, today's secret and visitors are loaded at start-up, before the first page", async () => {
    const board = await startProxiedBoard({}, { dataDir, now: noon + 7200 });
    try {
      const today = board.app.services.impressions.today;
      assert.equal(today?.day, '2026-03-10');
      assert.equal(today.seen.size, 2);
      const stored = board.app.services.db.one<{ secret: Buffer }>(
        "SELECT secret FROM daily_secrets WHERE day = '2026-03-10'",
      )!;
      assert.deepEqual(today.secret, stored.secret);
    } finally {
      await board.close();
    }
  });

  test('a start on a day without visits yet creates no secret', async () => {
    const board = await startProxiedBoard({}, { dataDir, now: noon + 86400 });
    try {
      assert.equal(board.app.services.impressions.today, undefined);
      assert.equal(board.app.services.db.one("SELECT 1 FROM daily_secrets WHERE day = '2026-03-11'"), undefined);
    } finally {
      await board.close();
    }
  });
});

describe('ASNs', () => {
  const t = useBoard();
  before(async () => {
    t.board.clock.set(noon);
    await t.board.app.services.asn.ready;
  });

  test('visitors count under their ASN, private and unlisted addresses under 0 "unknown"; most visitors first', async () => {
    // Rows of the fixture (real rows of the data set): 8.8.8.0/24 and 2001:4860::/… are Google (15169),
    // 1.0.0.0/24 and 2606:4700::/… Cloudflare (13335), 9.9.9.0/24 Quad9 (19281).
    for (const ip of [
      '8.8.8.8',
      '8.8.8.9',
      '8.8.4.4',
      '2001:4860:4860::8888',
      '1.0.0.1',
      '2606:4700:10::6',
      '9.9.9.9',
      '10.0.0.1',
      '192.168.1.20',
      '203.0.113.5',
    ]) {
      await view(t.board, '/', ip);
    }
    await view(t.board, '/', '8.8.8.8'); // repeated: not a new visitor
    const expected = [
      { asn: 15169, name: 'Google LLC', visitors: 4 },
      { asn: 0, name: 'unknown', visitors: 3 },
      { asn: 13335, name: 'Cloudflare, Inc.', visitors: 2 },
      { asn: 19281, name: 'Quad9', visitors: 1 },
    ];
    assert.deepEqual((await detail(t.board)).top_asns, expected);
    flushImpressions(t.board.app.services);
    assert.deepEqual((await detail(t.board)).top_asns, expected, 'the same from the database');
  });

  test('top_asns adds stored and unflushed visitors, looks back 30 days and lists at most 10', async () => {
    const db = t.board.app.services.db;
    db.run(
      "INSERT INTO daily_asn (day, asn, name, visitors) VALUES ('2026-02-09', 3333, 'RIPE NCC', 2), ('2026-02-08', 64500, 'Too Old', 1000)",
    );
    for (const ip of [
      '2.26.200.1',
      '185.199.108.1',
      '193.0.0.1',
      '193.0.8.1',
      '2001:4860:4805::1',
      '2001:4860:480c::1',
      '2606:4700:4f::1',
      '193.0.0.2',
    ]) {
      await view(t.board, '/', ip);
    }
    const top = (await detail(t.board)).top_asns as { asn: number; name: string; visitors: number }[];
    assert.equal(top.length, 10);
    assert.ok(!top.some((a) => a.asn === 64500));
    assert.deepEqual(
      top.slice(0, 4).map((a) => [a.asn, a.visitors]),
      [
        [3333, 4],
        [15169, 4],
        [0, 3],
        [13335, 2],
      ],
    );
    assert.equal(top.find((a) => a.asn === 3333)!.name, 'Reseaux IP Europeens Network Coordination Centre (RIPE NCC)');
    for (let i = 1; i < top.length; i++) {
      assert.ok(
        top[i - 1]!.visitors > top[i]!.visitors ||
          (top[i - 1]!.visitors === top[i]!.visitors && top[i - 1]!.asn < top[i]!.asn),
      );
    }
    // 11 ASNs had visitors (10 of the fixture, plus unknown): the one with fewest and the highest number is left out.
    assert.ok(!top.some((a) => a.asn === 209242));
  });
});

describe('database failures', () => {
  const t = useBoard();

  test('both endpoints answer 500 internal, never zeros', async () => {
    t.board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      assertError(await t.board.client().get('/api/stats'), 500, 'internal');
      assertError(await t.board.client().get('/api/stats/detail'), 500, 'internal');
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    assert.equal((await t.board.client().get('/api/stats')).status, 200);
  });

  test('a failed flush keeps the counts for the next one; pages still answer', async () => {
    t.board.clock.set(noon);
    await view(t.board, '/', '198.51.100.40');
    t.board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      assert.equal((await view(t.board, '/', '198.51.100.41')).status, 200);
      assert.throws(() => flushImpressions(t.board.app.services), /disk I\/O error/);
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    flushImpressions(t.board.app.services);
    assert.deepEqual(storedDay(t.board, '2026-03-10'), { impressions: 2, visitors: 2 });
  });
});

describe('privacy', () => {
  const dataDir = emptyFolder('board-privacy-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('no visitor IP in any table, in the database files or in the log', async () => {
    const ips = ['198.51.100.77', '8.8.8.8', '2001:db8::77:1', '2606:4700:10::77'];
    const board = await startProxiedBoard({}, { dataDir });
    board.clock.set(noon);
    await board.app.services.asn.ready;
    const ann = await member(board, 'ann', ips[0]);
    const pid = await post(ann, 'hello');
    for (const ip of ips) {
      await view(board, '/', ip);
      await view(board, `/e/${pid}`, ip);
      await view(board, '/u/ann', ip);
      await view(board, '/e/424242', ip);
      await board.client({ ip }).post(`/api/entry/${pid}/report`, { reason: 'spam' });
    }
    flushImpressions(board.app.services);
    assert.ok((await detail(board)).visitors_total >= ips.length);

    const db = board.app.services.db;
    const tables = db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").map((t) => t.name);
    assert.ok(tables.includes('visitor_hashes') && tables.includes('daily_asn'));
    const packed = (ip: string) => Buffer.from(ip.split('.').map(Number));
    for (const table of tables) {
      for (const row of db.all<Record<string, unknown>>(`SELECT * FROM "${table}"`)) {
        for (const [column, value] of Object.entries(row)) {
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
          for (const ip of ips) {
            assert.ok(!text.includes(ip), `${table}.${column} holds ${ip}`);
            if (Buffer.isBuffer(value) && ip.includes('.'))
              assert.ok(!value.includes(packed(ip)), `${table}.${column} holds ${ip} packed`);
          }
        }
      }
    }
    await board.close();
    for (const file of readdirSync(dataDir).filter((f) => f.startsWith('board.db'))) {
      const bytes = readFileSync(join(dataDir, file));
      for (const ip of ips) {
        assert.equal(bytes.indexOf(ip), -1, `${file} holds ${ip}`);
        assert.equal(bytes.indexOf(Buffer.from(ip, 'utf16le')), -1, `${file} holds ${ip} (UTF-16)`);
      }
    }
    const log = board.logs.join('\n');
    assert.ok(board.logs.length > 10);
    for (const ip of ips) assert.ok(!log.includes(ip), `the log holds ${ip}`);
  });
});
