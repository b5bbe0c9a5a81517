import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Db } from '../../lib/db/db.ts';
import type { SearchThreads } from '../../lib/search/threads.ts';
import {
  accountRemovalDone,
  followersTold,
  limitsOff,
  member,
  moderator,
  password,
  post,
  useBoard,
  visitor,
} from '../helpers.ts';

interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Runs `action` while recording every statement the server sends to SQLite, with its parameters:
 * the exact SQL of the request path, not a copy of it. `threads`: also what it sends to the search
 * threads (lib/search/threads.ts), which run the search index's match on connections of their own.
 */
async function recordStatements(db: Db, action: () => Promise<void>, threads?: SearchThreads): Promise<Statement[]> {
  const seen: Statement[] = [];
  const original = { one: db.one, all: db.all, value: db.value, run: db.run };
  const originalThreads = threads && { all: threads.all };
  const writable = db as { -readonly [K in keyof Db]: Db[K] };
  writable.one = ((sql: string, ...params: unknown[]) => {
    seen.push({ sql, params });
    return original.one(sql, ...params);
  }) as Db['one'];
  writable.all = ((sql: string, ...params: unknown[]) => {
    seen.push({ sql, params });
    return original.all(sql, ...params);
  }) as Db['all'];
  writable.value = ((sql: string, ...params: unknown[]) => {
    seen.push({ sql, params });
    return original.value(sql, ...params);
  }) as Db['value'];
  writable.run = (sql: string, ...params: unknown[]) => {
    seen.push({ sql, params });
    return original.run(sql, ...params);
  };
  if (threads)
    threads.all = ((sql: string, params: unknown[]) => {
      seen.push({ sql, params });
      return originalThreads!.all(sql, params);
    }) as SearchThreads['all'];
  try {
    await action();
  } finally {
    Object.assign(writable, original);
    if (threads) Object.assign(threads, originalThreads);
  }
  return seen;
}

const notAliases = new Set([
  'set',
  'where',
  'join',
  'left',
  'inner',
  'cross',
  'on',
  'order',
  'group',
  'limit',
  'values',
  'using',
  'as',
  'natural',
]);

/** The names the entries table goes by in a statement: `entries` and every alias. */
function entriesNames(sql: string): Set<string> {
  const names = new Set(['entries']);
  for (const match of sql.matchAll(/\bentries\s+(?:AS\s+)?([A-Za-z_]\w*)/gi)) {
    if (!notAliases.has(match[1]!.toLowerCase())) names.add(match[1]!);
  }
  return names;
}

/** Plan lines that read the whole entries table: `SCAN e` / `SCAN entries` without an index. */
function fullScansOfEntries(db: Db, statement: Statement): string[] {
  const plan = db.raw.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as { detail: string }[];
  const names = entriesNames(statement.sql);
  return plan
    .map((row) => row.detail)
    .filter((detail) => {
      const scan = /^SCAN (\w+)/.exec(detail);
      return scan !== null && names.has(scan[1]!) && !/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(detail);
    });
}

function touchesEntries(statement: Statement): boolean {
  return /\bentries\b/i.test(statement.sql) && !/^\s*(CREATE|PRAGMA)/i.test(statement.sql);
}

describe('query plans on the entries table', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  let db: Db;
  let root: number;
  let reply: number;
  before(async () => {
    db = t.board.app.services.db;
    // Enough rows that a scan would be a real choice for the planner.
    for (let i = 0; i < 30; i++) {
      const top = await post(i % 2 ? t.members.Anna : t.members.Bert, `Thema ${i}`);
      await post(t.members.Anna, `Antwort ${i}`, top);
    }
    root = await post(t.members.Anna, 'Wurzel');
    reply = await post(t.members.Bert, 'Antwort', root);
    await post(t.members.Anna, 'tiefer', reply);
    await t.members.Bert.post(`/api/entry/${root}/vote`, { mode: 'yes' });
  });

  function assertNoFullScan(statements: Statement[], label: string): void {
    const entryStatements = statements.filter(touchesEntries);
    assert.ok(entryStatements.length > 0, `${label}: statements were recorded`);
    for (const statement of entryStatements) {
      assert.deepEqual(fullScansOfEntries(db, statement), [], `${label}: full scan of entries in\n${statement.sql}`);
    }
  }

  const reads: [string, (s: Statement) => boolean, () => string][] = [
    ['the feed', (s) => /e\.reply_to = 0/.test(s.sql), () => '/api/entry/feed/0'],
    ['the thread replies', (s) => /WHERE e\.reply_to = \?/.test(s.sql), () => `/api/entry/${root}/thread`],
    ['the user feed', (s) => /WHERE e\.uid = \?/.test(s.sql), () => '/api/u/Anna/feed/0'],
    ['the vote tally', (s) => /LEFT JOIN votes/.test(s.sql), () => `/api/entry/${root}/votes`],
  ];

  test('the feed reads its page through the feed index, without sorting every top-level entry', async () => {
    await post(t.members.Bert, 'frisch, damit keine Seite aus dem Zwischenspeicher kommt');
    const statements = await recordStatements(db, async () => {
      assert.equal((await visitor(t.board).get('/api/entry/feed/0')).status, 200);
    });
    const feed = statements.find((s) => /e\.reply_to = 0/.test(s.sql))!;
    const plan = (db.raw.prepare(`EXPLAIN QUERY PLAN ${feed.sql}`).all(...feed.params) as { detail: string }[]).map(
      (r) => r.detail,
    );
    assert.ok(
      plan.some((line) => /USING INDEX entries_feed/.test(line)),
      plan.join('\n'),
    );
    assert.ok(!plan.some((line) => /TEMP B-TREE/.test(line)), plan.join('\n'));
  });

  test('a search walks the index newest first and stops after its page: no sort, no scan of entries', async () => {
    await post(t.members.Bert, 'frisch, damit keine Suche aus dem Zwischenspeicher kommt');
    const statements = await recordStatements(
      db,
      async () => {
        for (const q of ['thema', 'ant wort', 'thema&user=Anna'])
          assert.equal((await visitor(t.board).get(`/api/search/0?q=${q}`)).status, 200);
      },
      t.board.app.services.searchThreads,
    );
    const searches = statements.filter((s) => /FROM search WHERE search MATCH/.test(s.sql));
    assert.equal(searches.length, 3);
    for (const search of searches) {
      const plan = (
        db.raw.prepare(`EXPLAIN QUERY PLAN ${search.sql}`).all(...search.params) as { detail: string }[]
      ).map((r) => r.detail);
      assert.ok(
        plan.some((line) => /VIRTUAL TABLE INDEX/.test(line)),
        plan.join('\n'),
      );
      assert.ok(
        !plan.some((line) => /TEMP B-TREE/.test(line)),
        `FTS5 gives the rows in rowid order: ${plan.join('\n')}`,
      );
    }
    assertNoFullScan(statements, 'search');
  });

  for (const [label, isMainQuery, path] of reads) {
    test(`${label} does not scan the entries table`, async () => {
      await post(t.members.Bert, 'frisch, damit keine Seite aus dem Zwischenspeicher kommt');
      const statements = await recordStatements(db, async () => {
        const answer = await visitor(t.board).get(path());
        assert.equal(answer.status, 200, answer.text);
      });
      assert.ok(statements.some(isMainQuery), `${label}: its query was recorded`);
      assertNoFullScan(statements, label);
    });
  }

  test('the latest lookups of the feed and the thread go by primary key', async () => {
    await post(t.members.Bert, 'frisch');
    const statements = await recordStatements(db, async () => {
      assert.equal((await visitor(t.board).get('/api/entry/feed/0')).status, 200);
      assert.equal((await visitor(t.board).get(`/api/entry/${root}/thread`)).status, 200);
    });
    const lookups = statements.filter((s) => /json_each/.test(s.sql) && touchesEntries(s));
    assert.ok(lookups.length > 0, 'the latest entries are looked up in one query per page');
    assertNoFullScan(lookups, 'latest lookup');
  });

  test('a feed page and a thread take a fixed number of queries, not one per entry, and no recursive query per row', async () => {
    // 20+ threads with replies, and a thread with 30 replies that each have one of their own.
    const many = await post(t.members.Anna, 'viele');
    for (let i = 0; i < 30; i++)
      await post(t.members.Bert, `unten ${i}`, await post(t.members.Anna, `Antwort ${i}`, many));
    await followersTold(t.board); // the fan-out job's statements are not the reads'
    const selects = (statements: Statement[]) => statements.filter((s) => /^\s*(WITH|SELECT)/i.test(s.sql));

    const feed = selects(
      await recordStatements(db, async () => {
        const answer = await visitor(t.board).get('/api/entry/feed/0');
        assert.equal(answer.body.length, 20);
        assert.ok(
          answer.body.filter((e: { latest?: unknown }) => e.latest).length >= 10,
          'most of the page has a latest',
        );
      }),
    );
    assert.ok(feed.length <= 3, `feed page: ${feed.length} queries`);
    assert.ok(
      feed.every((s) => !/RECURSIVE/i.test(s.sql)),
      'no recursive query on the feed',
    );

    const thread = selects(
      await recordStatements(db, async () => {
        const answer = await visitor(t.board).get(`/api/entry/${many}/thread`);
        assert.equal(answer.body.replies.length, 30);
        assert.ok(answer.body.replies.every((e: { latest?: unknown }) => e.latest));
      }),
    );
    assert.ok(thread.length <= 5, `thread: ${thread.length} queries`);
    assert.ok(
      thread.filter((s) => /RECURSIVE/i.test(s.sql)).length <= 1,
      'one recursive query (the ancestors) at most',
    );
  });

  test('notifications, the unread count and the Atom feeds read by index: no scan of entries or notifications', async () => {
    await post(t.members.Bert, 'Hallo @Anna, frisch für die Feeds', root);
    await followersTold(t.board); // the fan-out job's statements are not the reads'
    const statements = await recordStatements(db, async () => {
      for (const path of ['/api/user/notifications/0', '/api/user/notifications/unread'])
        assert.equal((await t.members.Anna.get(path)).status, 200);
      for (const path of ['/feed.atom', `/e/${root}/feed.atom`, '/u/Anna/feed.atom'])
        assert.equal((await visitor(t.board).get(path)).status, 200);
    });
    assertNoFullScan(statements, 'notifications and feeds');
    for (const statement of statements.filter((s) => /FROM notifications/.test(s.sql))) {
      const plan = (
        db.raw.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as { detail: string }[]
      ).map((r) => r.detail);
      assert.ok(!plan.some((line) => /^SCAN n\b(?!.*USING)/.test(line)), `notifications scanned:\n${plan.join('\n')}`);
      assert.ok(!plan.some((line) => /TEMP B-TREE/.test(line)), `no sort: ${plan.join('\n')}`);
    }
  });

  test('writes that keep latest and last_activity right do not scan the entries table', async () => {
    const statements = await recordStatements(db, async () => {
      const child = await post(t.members.Anna, 'neue Antwort', reply);
      assert.equal((await t.members.Bert.post(`/api/entry/${reply}/bump`)).status, 200);
      assert.equal((await t.members.Bert.post(`/api/entry/${reply}/vote`, { mode: 'no' })).status, 200);
      assert.equal((await t.members.Anna.post(`/api/entry/${child}/delete`)).status, 200);
    });
    assertNoFullScan(statements, 'create, bump, vote, delete');
  });

  test('account deletion does not scan the entries table', async () => {
    const carla = await member(t.board, 'Carla');
    const own = await post(carla, 'Carla schreibt');
    await post(t.members.Anna, 'Antwort an Carla', own);
    await post(carla, 'Carla antwortet', root);
    await carla.post(`/api/entry/${root}/vote`, { mode: 'no' });
    const statements = await recordStatements(db, async () => {
      const answer = await carla.post('/api/user/delete', { pass1: password });
      assert.equal(answer.status, 200, answer.text);
      await accountRemovalDone(t.board); // the slices that follow the answer scan nothing either
    });
    assertNoFullScan(statements, 'account deletion');
  });

  test('moderation (remove, restore, a ban with purge, the queue, the log) does not scan the entries table', async () => {
    const mia = await moderator(t.board, 'Mia');
    const spammer = await member(t.board, 'Spammer');
    const spam = await post(spammer, 'Spam', reply);
    await post(spammer, 'mehr Spam');
    await visitor(t.board).post(`/api/entry/${spam}/report`, { reason: 'Spam' });
    const statements = await recordStatements(db, async () => {
      assert.equal((await mia.get('/api/mod/reports/0')).status, 200);
      assert.equal((await mia.post(`/api/mod/entry/${spam}/remove`, { reason: 'Spam' })).status, 200);
      assert.equal((await mia.post(`/api/mod/entry/${spam}/restore`)).status, 200);
      assert.equal((await mia.post('/api/mod/user/Spammer/ban', { reason: 'Spam', purge: 1 })).status, 200);
      assert.equal((await visitor(t.board).get('/api/modlog/0')).status, 200);
    });
    assertNoFullScan(statements, 'moderation');
    const log = statements.find((s) => /FROM modlog m/.test(s.sql))!;
    const plan = (db.raw.prepare(`EXPLAIN QUERY PLAN ${log.sql}`).all(...log.params) as { detail: string }[]).map(
      (r) => r.detail,
    );
    assert.ok(
      plan.some((line) => /USING INDEX modlog_public/.test(line)) && !plan.some((line) => /TEMP B-TREE/.test(line)),
      plan.join('\n'),
    );
  });
});

describe('the walk of a create through the entry gate', () => {
  const t = useBoard({ users: ['Erste'], members: ['Rita', 'Paul'] });

  test("a reply with a link reads its author's standing once, its parent once, and looks for a copy once", async () => {
    t.board.clock.advance(601); // level 0 past its first 10 minutes: every rule of the gate has a say
    const parent = await post(t.members.Paul, 'Worauf geantwortet wird');
    const statements = await recordStatements(t.board.app.services.db, async () => {
      const answer = await t.members.Rita.post('/api/entry/create', {
        content: 'Eine Antwort mit https://a.example/',
        reply_to: parent,
      });
      assert.equal(answer.status, 201, answer.text);
    });
    const times = (pattern: RegExp) => statements.filter((s) => pattern.test(s.sql)).length;
    assert.equal(times(/SELECT created_at, role, trust_set FROM users WHERE uid = \?/), 1, 'the standing');
    assert.equal(times(/^SELECT pid, uid, created_at, content, filepath, reply_to, root, depth\b/), 1, 'the parent');
    assert.equal(times(/FROM entries WHERE uid = \? ORDER BY pid DESC LIMIT \?/), 1, 'the copy check');
  });
});
