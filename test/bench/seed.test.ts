import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { benchSessionToken, benchUsername, deepThreadPid, hotThreadPid, seedBoard } from '../../bench/seed.ts';
import { createApp } from '../../lib/app.ts';
import { loadConfig } from '../../lib/config.ts';
import { openDb, type Db } from '../../lib/db/db.ts';
import { latestMaxDepth } from '../../lib/product.ts';
import type { StoredEntry as Row } from '../../lib/entries/entries.ts';
import { day, emptyFolder } from '../helpers.ts';
import { prepareDataDir } from '../../lib/host/folders.ts';

/**
 * A smoke run of the benchmark seed (bench/seed.ts) with 1,000 entries: every denormalised
 * column it computes in memory must equal what the server would have kept, recomputed here
 * the slow way from reply_to, and the board must start on it with working sessions.
 */

const size = { entries: 1000, users: 50, votes: 2000, sessions: 5 };

describe('bench/seed.ts with 1,000 entries', () => {
  let dataDir: string;
  let db: Db;
  let rows: Row[];
  let byPid: Map<number, Row>;
  let children: Map<number, Row[]>;
  let stats: Record<string, number>;

  before(async () => {
    dataDir = emptyFolder('board-seed-');
    stats = await seedBoard(join(dataDir, 'board.db'), size);
    db = openDb(join(dataDir, 'board.db'));
    rows = db.all<Row>('SELECT * FROM entries ORDER BY pid');
    byPid = new Map(rows.map((r) => [r.pid, r]));
    children = new Map();
    for (const r of rows) {
      if (!children.has(r.reply_to)) children.set(r.reply_to, []);
      children.get(r.reply_to)!.push(r);
    }
  });
  after(async () => {
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const count = (sql: string, ...params: unknown[]) => db.one<{ n: number }>(sql, ...params)!.n;

  test('row counts: users, entries, votes and sessions as asked; the shape the benchmark relies on', () => {
    assert.equal(count('SELECT count(*) AS n FROM users'), size.users);
    assert.equal(count('SELECT count(*) AS n FROM entries'), size.entries);
    assert.equal(count('SELECT count(*) AS n FROM votes'), size.votes);
    assert.equal(count('SELECT count(*) AS n FROM sessions'), size.sessions);
    assert.deepEqual(
      rows.map((r) => r.pid),
      Array.from({ length: size.entries }, (_, i) => i + 1),
    );
    assert.equal(count('SELECT count(*) AS n FROM users WHERE username = ?', benchUsername(1)), 1);
    assert.equal(byPid.get(hotThreadPid)!.reply_count, 150, 'the hot thread has 150 direct replies');
    assert.equal(stats.hot_thread_replies, 150);
    const deepest = Math.max(...rows.filter((r) => r.root === deepThreadPid).map((r) => r.depth));
    assert.ok(deepest >= 80, `a chain 80 levels deep below entry ${deepThreadPid} (${deepest})`);
    assert.ok(stats.max_depth! > 60, `some chains run deeper than 60 levels (max ${stats.max_depth})`);
    const topLevel = rows.filter((r) => r.reply_to === 0).length / rows.length;
    assert.ok(topLevel > 0.2 && topLevel < 0.4, `about 30 % top-level (${topLevel})`);
    assert.ok(
      rows.some((r) => r.deleted),
      'some deletions',
    );
    assert.ok(
      rows.some((r) => r.bump_count > 0),
      'some bumps',
    );
  });

  test('every reply points at an older entry; authors exist; deleted entries are blanked', () => {
    const uids = new Set(db.all<{ uid: number }>('SELECT uid FROM users').map((u) => u.uid));
    for (const r of rows) {
      if (r.reply_to !== 0) {
        const parent = byPid.get(r.reply_to);
        assert.ok(parent, `parent of ${r.pid} exists`);
        assert.ok(
          parent.created_at < r.created_at || (parent.created_at === r.created_at && parent.pid < r.pid),
          `parent of ${r.pid} is older`,
        );
      }
      assert.ok(uids.has(r.uid), `author of ${r.pid} exists`);
      if (r.deleted)
        assert.deepEqual([r.content, r.filepath, r.link], ['', '', ''], `deleted entry ${r.pid} is blanked`);
      else assert.notEqual(r.content, '', `live entry ${r.pid} has text`);
    }
  });

  test('depth, root and reply_count (direct replies, deleted ones included) agree with reply_to', () => {
    for (const r of rows) {
      let depth = 0;
      let root = r.pid;
      for (let p = r.reply_to; p !== 0; p = byPid.get(p)!.reply_to) {
        depth++;
        root = p;
      }
      assert.equal(r.depth, depth, `depth of ${r.pid}`);
      assert.equal(r.root, root, `root of ${r.pid}`);
      assert.equal(r.reply_count, children.get(r.pid)?.length ?? 0, `reply_count of ${r.pid}`);
    }
  });

  test('latest is the newest live descendant within 50 levels (created_at, then pid), skipped its distance − 1', () => {
    const isNewer = (a: Row, b: Row | undefined) =>
      !b || a.created_at > b.created_at || (a.created_at === b.created_at && a.pid > b.pid);
    let withLatest = 0;
    let cutByTheLimit = 0;
    for (const r of rows) {
      let best: { row: Row; skipped: number } | undefined;
      let beyond: Row | undefined; // the newest live descendant more than 50 levels down
      let level = children.get(r.pid) ?? [];
      for (let dist = 1; level.length > 0; dist++) {
        for (const c of level) {
          if (c.deleted) continue;
          if (dist > latestMaxDepth) {
            if (isNewer(c, beyond)) beyond = c;
          } else if (isNewer(c, best?.row)) {
            best = { row: c, skipped: dist - 1 };
          }
        }
        level = level.flatMap((c) => children.get(c.pid) ?? []);
      }
      const stored = r.latest_pid === 0 ? undefined : { pid: r.latest_pid, skipped: r.latest_skipped };
      assert.deepEqual(stored, best && { pid: best.row.pid, skipped: best.skipped }, `latest of ${r.pid}`);
      if (stored) withLatest++;
      if (beyond && isNewer(beyond, best?.row)) cutByTheLimit++;
    }
    assert.ok(withLatest > 100);
    assert.ok(
      cutByTheLimit > 0,
      'for some entries the newest descendant lies beyond 50 levels, so the limit is tested',
    );
  });

  test("last_activity is the newest of its own and every descendant's creation and bump", () => {
    // Walk newest first: every child is later than its parent, so a subtree is done before its root.
    const newest = new Map<number, number>();
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i]!;
      const own = Math.max(r.created_at, r.last_bump, newest.get(r.pid) ?? 0);
      newest.set(r.pid, own);
      if (r.reply_to) newest.set(r.reply_to, Math.max(newest.get(r.reply_to) ?? 0, own));
    }
    for (const r of rows) {
      assert.ok(r.last_activity >= r.created_at, `last_activity of ${r.pid} ≥ created_at`);
      assert.equal(r.last_activity, newest.get(r.pid), `last_activity of ${r.pid}`);
    }
  });

  test('bumps: none on deleted entries; last_bump 0 when never bumped; the growing cooldown is respected', () => {
    for (const r of rows) {
      if (r.bump_count === 0) {
        assert.equal(r.last_bump, 0, `never bumped ${r.pid}`);
        continue;
      }
      assert.equal(r.deleted, 0, `bumped ${r.pid} is live`);
      // n bumps need at least 1 + 2 + … + (n − 1) days between the first and the last.
      const minimumSpan = ((r.bump_count * (r.bump_count - 1)) / 2) * day;
      assert.ok(r.last_bump >= r.created_at + minimumSpan, `bumps of ${r.pid} fit the cooldown`);
    }
  });

  test('votes_yes and votes_no equal the vote rows; votes are by existing users', () => {
    const tallies = new Map(
      db
        .all<{ pid: number; yes: number; no: number }>(
          'SELECT pid, sum(yes) AS yes, sum(1 - yes) AS no FROM votes GROUP BY pid',
        )
        .map((t) => [t.pid, t]),
    );
    for (const r of rows) {
      const t = tallies.get(r.pid);
      assert.deepEqual([r.votes_yes, r.votes_no], [t?.yes ?? 0, t?.no ?? 0], `tally of ${r.pid}`);
    }
    assert.equal(count('SELECT count(*) AS n FROM votes v LEFT JOIN users u ON u.uid = v.uid WHERE u.uid IS NULL'), 0);
    assert.equal(
      count('SELECT count(*) AS n FROM votes v LEFT JOIN entries e ON e.pid = v.pid WHERE e.pid IS NULL'),
      0,
    );
  });

  test('counters equal COUNT(*) recomputations (entries, toplevel and replies count live ones)', () => {
    const counters = Object.fromEntries(
      db.all<{ name: string; value: number }>('SELECT name, value FROM counters').map((c) => [c.name, c.value]),
    );
    const expected = {
      users: count('SELECT count(*) AS n FROM users'),
      entries: count('SELECT count(*) AS n FROM entries WHERE deleted = 0'),
      toplevel: count('SELECT count(*) AS n FROM entries WHERE deleted = 0 AND reply_to = 0'),
      replies: count('SELECT count(*) AS n FROM entries WHERE deleted = 0 AND reply_to <> 0'),
      votes_yes: count('SELECT count(*) AS n FROM votes WHERE yes = 1'),
      votes_no: count('SELECT count(*) AS n FROM votes WHERE yes = 0'),
    };
    for (const [name, value] of Object.entries(expected)) {
      assert.equal(counters[name], value, `counter ${name}`);
      assert.equal(stats[name], value, `seedBoard's returned ${name}`);
    }
  });

  test('the board starts on the seeded database: a seeded session works, feed page 0 has 20 entries, the hot thread 100 replies', async () => {
    const config = loadConfig({ BOARD_DATA: dataDir, PORT: '0', BOARD_PREVIEW: '0' });
    prepareDataDir(config);
    const logs: string[] = [];
    const app = createApp(config, { log: (line) => logs.push(line) });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const info = await fetch(`${url}/api/user/info`, { headers: { cookie: `session=${benchSessionToken(1)}` } });
      assert.equal(info.status, 200, await info.clone().text());
      const user = (await info.json()) as { uid: number; username: string };
      assert.deepEqual([user.uid, user.username], [1, benchUsername(1)]);

      const anonymous = await fetch(`${url}/api/user/info`, {
        headers: { cookie: `session=${benchSessionToken(size.sessions + 1)}` },
      });
      assert.equal(anonymous.status, 401, 'only users 1..sessions have a session');

      const feed = await fetch(`${url}/api/entry/feed/0`);
      assert.equal(feed.status, 200);
      const entries = (await feed.json()) as { pid: number; last_activity: number }[];
      assert.equal(entries.length, 20);
      const order = db.all<{ pid: number }>(
        'SELECT pid FROM entries WHERE reply_to = 0 AND (deleted = 0 OR latest_pid <> 0) ORDER BY last_activity DESC, pid DESC LIMIT 20',
      );
      assert.deepEqual(
        entries.map((e) => e.pid),
        order.map((e) => e.pid),
      );

      const thread = await fetch(`${url}/api/entry/${hotThreadPid}/thread`);
      assert.equal(thread.status, 200);
      const body = (await thread.json()) as { entry: { reply_count: number }; replies: unknown[] };
      assert.equal(body.entry.reply_count, 150);
      assert.equal(body.replies.length, 100);
    } finally {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await app.close();
    }
  });
});

describe('bench/seed.ts is deterministic', () => {
  test('two runs of the same size give the same tree, authors, deletions, bumps and votes', async () => {
    const dir = emptyFolder('board-seed-twice-');
    try {
      const shapes: string[] = [];
      for (const name of ['a.db', 'b.db']) {
        await seedBoard(join(dir, name), { entries: 300, users: 20, votes: 500, sessions: 1 });
        const seeded = openDb(join(dir, name));
        const entries = seeded.all(
          'SELECT pid, uid, reply_to, deleted, bump_count, latest_pid, latest_skipped, votes_yes, votes_no, content FROM entries ORDER BY pid',
        );
        const votes = seeded.all('SELECT pid, uid, yes FROM votes ORDER BY pid, uid');
        shapes.push(JSON.stringify({ entries, votes }));
        await seeded.close();
      }
      assert.equal(shapes[0], shapes[1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
