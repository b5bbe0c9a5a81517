import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  accountRemovalDone,
  assertError,
  entryRow,
  limitsOff,
  member,
  password,
  post,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import {
  assertStoredLatestMatchesBruteForce,
  bruteForceLatest,
  entryFields,
  latestOf,
  wholeFeed,
} from '../helpers/entries.ts';
import { prng } from '../helpers/prng.ts';

async function feedEntry(board: TestBoard, pid: number) {
  const feed = await wholeFeed(visitor(board));
  return feed.find((e: { pid: number }) => e.pid === pid);
}

async function replyInThread(board: TestBoard, parent: number, pid: number) {
  const thread = await visitor(board).get(`/api/entry/${parent}/thread`);
  assert.equal(thread.status, 200, thread.text);
  assertDocumented(thread);
  return thread.body.replies.find((e: { pid: number }) => e.pid === pid);
}

async function remove(client: Client, pid: number): Promise<void> {
  const answer = await client.post(`/api/entry/${pid}/delete`);
  assert.equal(answer.status, 200, answer.text);
}

describe('latest on short chains', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  async function chainOfThree(): Promise<[number, number, number]> {
    const a = await post(t.members.Anna, 'A');
    t.board.clock.advance(1);
    const b = await post(t.members.Anna, 'B', a);
    t.board.clock.advance(1);
    const c = await post(t.members.Anna, 'C', b);
    t.board.clock.advance(1);
    return [a, b, c];
  }

  test("on a chain of 3 levels the feed shows the grandchild with skipped 1, the thread the child's latest with skipped 0", async () => {
    const [a, b, c] = await chainOfThree();
    const top = await feedEntry(t.board, a);
    assert.deepEqual(latestOf(top), { pid: c, skipped: 1 });
    assert.deepEqual(Object.keys(top.latest).sort(), ['entry', 'skipped']);
    assert.deepEqual(
      Object.keys(top.latest.entry).sort(),
      entryFields,
      'latest.entry is a full Entry without a latest of its own',
    );
    assert.equal(top.latest.entry.content, 'C');
    assert.equal(top.latest.entry.username, 'Anna');
    assert.equal(top.latest.entry.reply_to, b);

    const child = await replyInThread(t.board, a, b);
    assert.deepEqual(latestOf(child), { pid: c, skipped: 0 });
    const grandchild = await replyInThread(t.board, b, c);
    assert.equal('latest' in grandchild, false, 'no latest without replies');
    assertStoredLatestMatchesBruteForce(t.board);
  });

  test('a deleted middle entry is still counted in skipped and still shows its latest', async () => {
    const [a, b, c] = await chainOfThree();
    await remove(t.members.Anna, b);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: c, skipped: 1 });
    const middle = await replyInThread(t.board, a, b);
    assert.equal(middle.deleted, 1);
    assert.equal(middle.content, '');
    assert.deepEqual(latestOf(middle), { pid: c, skipped: 0 });
    assertStoredLatestMatchesBruteForce(t.board);
  });

  test('a deleted newest entry falls back to the next newest, and latest disappears when none is left', async () => {
    const [a, b, c] = await chainOfThree();
    const d = await post(t.members.Anna, 'D', a);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: d, skipped: 0 });

    await remove(t.members.Anna, d);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: c, skipped: 1 });
    await remove(t.members.Anna, c);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: b, skipped: 0 });
    assert.equal('latest' in (await replyInThread(t.board, a, b)), false);
    await remove(t.members.Anna, b);
    const top = await feedEntry(t.board, a);
    assert.ok(top, 'a live top-level entry stays in the feed');
    assert.equal('latest' in top, false);
    assertStoredLatestMatchesBruteForce(t.board);
  });

  test('two replies in the same second: the higher pid is the newer one', async () => {
    const a = await post(t.members.Anna, 'gleichzeitig');
    const first = await post(t.members.Anna, 'erste', a);
    const second = await post(t.members.Anna, 'zweite', a);
    assert.equal(entryRow(t.board, first)!.created_at, entryRow(t.board, second)!.created_at);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: second, skipped: 0 });
    await remove(t.members.Anna, second);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: first, skipped: 0 });
  });

  test('an older but deeper entry does not win over a newer shallow one', async () => {
    const [a, , deep] = await chainOfThree();
    const shallow = await post(t.members.Anna, 'flach', a);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: shallow, skipped: 0 });
    await remove(t.members.Anna, shallow);
    assert.deepEqual(latestOf(await feedEntry(t.board, a)), { pid: deep, skipped: 1 });
  });
});

describe('latest on a chain deeper than 50 levels', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });
  const chain: number[] = []; // chain[d] is the entry at depth d
  before(async () => {
    chain.push(await post(t.members.Anna, 'Tiefe 0'));
    for (let depth = 1; depth <= 60; depth++) {
      t.board.clock.advance(1);
      chain.push(await post(t.members.Anna, `Tiefe ${depth}`, chain[depth - 1]));
    }
  });

  test('the root shows the entry at depth 50 with skipped 49, nothing deeper', async () => {
    const root = await feedEntry(t.board, chain[0]!);
    assert.deepEqual(latestOf(root), { pid: chain[50], skipped: 49 });
    assert.equal(root.latest.entry.content, 'Tiefe 50');
    // Depth 1 sees down to depth 51; depth 10 down to 60; below that the chain's end is in range.
    assert.deepEqual(latestOf(await replyInThread(t.board, chain[0]!, chain[1]!)), { pid: chain[51], skipped: 49 });
    assert.deepEqual(latestOf(await replyInThread(t.board, chain[9]!, chain[10]!)), { pid: chain[60], skipped: 49 });
    assert.deepEqual(latestOf(await replyInThread(t.board, chain[10]!, chain[11]!)), { pid: chain[60], skipped: 48 });
    assertStoredLatestMatchesBruteForce(t.board);
  });

  test('deleting entries near the bottom repairs every pointer within 50 levels above them', async () => {
    await remove(t.members.Anna, chain[50]!);
    assert.deepEqual(latestOf(await feedEntry(t.board, chain[0]!)), { pid: chain[49], skipped: 48 });
    assertStoredLatestMatchesBruteForce(t.board, 'after deleting depth 50');

    await remove(t.members.Anna, chain[60]!);
    assert.deepEqual(latestOf(await replyInThread(t.board, chain[9]!, chain[10]!)), { pid: chain[59], skipped: 48 });
    assert.deepEqual(latestOf(await replyInThread(t.board, chain[58]!, chain[59]!)), undefined);
    assertStoredLatestMatchesBruteForce(t.board, 'after deleting depth 60');

    for (const depth of [49, 51, 55, 1, 59, 30]) {
      await remove(t.members.Anna, chain[depth]!);
      assertStoredLatestMatchesBruteForce(t.board, `after deleting depth ${depth}`);
    }
    // Depth 0 now sees 2..48 live, 49/50/51 deleted: the newest in range is depth 48.
    assert.deepEqual(latestOf(await feedEntry(t.board, chain[0]!)), { pid: chain[48], skipped: 47 });
  });

  test('a new reply at the bottom becomes latest of its 50 nearest ancestors only', async () => {
    t.board.clock.advance(1);
    const bottom = await post(t.members.Anna, 'ganz unten', chain[58]!); // depth 59
    const expected = bruteForceLatest(t.board);
    assert.deepEqual(expected.get(chain[9]!), { pid: bottom, skipped: 49 });
    assert.notEqual(expected.get(chain[8]!)?.pid, bottom);
    assertStoredLatestMatchesBruteForce(t.board);
  });
});

describe('latest after a random sequence of creates and deletes', () => {
  const t = useBoard({ env: limitsOff });

  test("every entry's latest equals a brute-force recomputation, in the database and in the API", async () => {
    // LATEST_SEED=<n> replays another sequence.
    const random = prng(Number(process.env.LATEST_SEED ?? 20261121));
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const names = ['Ada', 'Bob', 'Cleo', 'Dan'];
    const clients = await Promise.all(names.map((name) => member(t.board, name)));
    const author = new Map<number, Client>();
    const live: number[] = [];
    let maxDepth = 0;
    const depth = new Map<number, number>();
    const deepestLive = () => live.reduce((best, pid) => (depth.get(pid)! >= depth.get(best)! ? pid : best));

    for (let op = 0; op < 300; op++) {
      if (random() < 0.5) t.board.clock.advance(1 + Math.floor(random() * 3)); // else: same second, pid decides
      const r = random();
      if (live.length > 0 && r < 0.25) {
        const pid = pick(live);
        await remove(author.get(pid)!, pid);
        live.splice(live.indexOf(pid), 1);
      } else {
        let parent = 0;
        // Mostly below the deepest live entry, so one chain grows past 50 levels; else anywhere.
        if (live.length > 0 && r > 0.3) parent = r > 0.45 ? deepestLive() : pick(live);
        const client = pick(clients);
        const pid = await post(client, `Eintrag ${op}`, parent);
        author.set(pid, client);
        live.push(pid);
        depth.set(pid, parent ? depth.get(parent)! + 1 : 0);
        maxDepth = Math.max(maxDepth, depth.get(pid)!);
      }
      if (op % 25 === 24) assertStoredLatestMatchesBruteForce(t.board, `after operation ${op}`);
      // Through the API too, between writes, so cached feed pages and threads must follow every write.
      if (op % 60 === 59) await assertApiLatestMatchesBruteForce(t.board);
    }
    assert.ok(maxDepth > 50, `the sequence builds a chain deeper than 50 (got ${maxDepth})`);
    assert.ok(author.size > 150, 'enough entries');
    assertStoredLatestMatchesBruteForce(t.board, 'at the end');
    await assertApiLatestMatchesBruteForce(t.board);

    // Account deletion removes rows outright (or leaves tombstones): the pointers must follow.
    const gone = await clients[0]!.post('/api/user/delete', { pass1: password });
    assert.equal(gone.status, 200, gone.text);
    await accountRemovalDone(t.board);
    assertStoredLatestMatchesBruteForce(t.board, 'after an account deletion');
    await assertApiLatestMatchesBruteForce(t.board);
  });
});

/** The feed (every page) and every thread's replies show exactly the brute-force `latest`. */
async function assertApiLatestMatchesBruteForce(board: TestBoard): Promise<void> {
  const expected = bruteForceLatest(board);
  const db = board.app.services.db;
  const client = visitor(board);

  const feed = await wholeFeed(client);
  const shouldShow = db
    .all<{ pid: number; deleted: number }>(
      'SELECT pid, deleted FROM entries WHERE reply_to = 0 ORDER BY last_activity DESC, pid DESC',
    )
    .filter((row) => !row.deleted || expected.get(row.pid) !== undefined);
  assert.deepEqual(
    feed.map((e: { pid: number }) => e.pid),
    shouldShow.map((r) => r.pid),
    'feed membership and order',
  );
  for (const entry of feed) assert.deepEqual(latestOf(entry), expected.get(entry.pid), `feed latest of ${entry.pid}`);

  const parents = db.all<{ pid: number }>('SELECT DISTINCT reply_to AS pid FROM entries WHERE reply_to <> 0');
  for (const { pid } of parents) {
    const thread = await client.get(`/api/entry/${pid}/thread`);
    assert.equal(thread.status, 200);
    for (const reply of thread.body.replies) {
      assert.deepEqual(latestOf(reply), expected.get(reply.pid), `thread ${pid}: latest of reply ${reply.pid}`);
    }
  }
}

describe('feed', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('leaves out a deleted top-level entry without live descendants, but shows one that has a latest', async () => {
    const lonely = await post(t.members.Anna, 'allein');
    const parent = await post(t.members.Anna, 'mit Antwort');
    const reply = await post(t.members.Bert, 'Antwort', parent);
    await remove(t.members.Anna, lonely);
    await remove(t.members.Anna, parent);

    let feed = await wholeFeed(visitor(t.board));
    assert.equal(
      feed.some((e: { pid: number }) => e.pid === lonely),
      false,
    );
    const shown = feed.find((e: { pid: number }) => e.pid === parent);
    assert.ok(shown, 'a deleted top-level entry with a live reply stays');
    assert.equal(shown.deleted, 1);
    assert.equal(shown.content, '');
    assert.equal(shown.filepath, '');
    assert.deepEqual(latestOf(shown), { pid: reply, skipped: 0 });

    await remove(t.members.Bert, reply);
    feed = await wholeFeed(visitor(t.board));
    assert.equal(
      feed.some((e: { pid: number }) => e.pid === parent),
      false,
      'gone once nothing live is below it',
    );
  });

  test('is ordered by last_activity then pid, and replies and bumps move a thread to the top', async () => {
    t.board.clock.advance(10);
    const a = await post(t.members.Anna, 'A');
    t.board.clock.advance(1);
    const b = await post(t.members.Anna, 'B');
    t.board.clock.advance(1);
    const c = await post(t.members.Anna, 'C');
    const d = await post(t.members.Anna, 'D'); // same second as C: the higher pid comes first
    const top = async (n: number) =>
      (await visitor(t.board).get('/api/entry/feed/0')).body.slice(0, n).map((e: { pid: number }) => e.pid);
    assert.deepEqual(await top(4), [d, c, b, a]);

    t.board.clock.advance(1);
    const deep = await post(t.members.Bert, 'Antwort auf A', a);
    assert.deepEqual(await top(4), [a, d, c, b], 'a reply moves its thread up');
    t.board.clock.advance(1);
    await post(t.members.Bert, 'tiefer', deep);
    assert.equal(entryRow(t.board, a)!.last_activity, t.board.clock.now(), 'a deep reply moves the root too');

    t.board.clock.advance(1);
    assert.equal((await t.members.Bert.post(`/api/entry/${b}/bump`)).status, 200);
    assert.deepEqual(await top(4), [b, a, d, c], 'a bump moves its thread up');

    t.board.clock.advance(1);
    const feed = (await visitor(t.board).get('/api/entry/feed/0')).body as { last_activity: number; pid: number }[];
    for (let i = 1; i < feed.length; i++) {
      const [x, y] = [feed[i - 1]!, feed[i]!];
      assert.ok(x.last_activity > y.last_activity || (x.last_activity === y.last_activity && x.pid > y.pid), 'sorted');
    }
  });

  test('shows only top-level entries', async () => {
    const feed = await wholeFeed(visitor(t.board));
    assert.ok(feed.length > 0);
    assert.ok(feed.every((e: { reply_to: number }) => e.reply_to === 0));
  });
});

describe('feed pages', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });
  const pids: number[] = [];
  before(async () => {
    for (let i = 0; i < 45; i++) pids.push(await post(t.members.Anna, `Nummer ${i}`));
  });

  test('hold 20 entries each, newest first, and [] past the end', async () => {
    const client = visitor(t.board);
    const newestFirst = [...pids].reverse();
    const page0 = await client.get('/api/entry/feed/0');
    assert.equal(page0.status, 200);
    assertDocumented(page0);
    assert.deepEqual(
      page0.body.map((e: { pid: number }) => e.pid),
      newestFirst.slice(0, 20),
    );
    const page1 = await client.get('/api/entry/feed/1');
    assert.deepEqual(
      page1.body.map((e: { pid: number }) => e.pid),
      newestFirst.slice(20, 40),
    );
    const page2 = await client.get('/api/entry/feed/2');
    assert.deepEqual(
      page2.body.map((e: { pid: number }) => e.pid),
      newestFirst.slice(40),
    );
    for (const page of [3, 100]) {
      const answer = await client.get(`/api/entry/feed/${page}`);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, []);
    }
  });

  test('a page outside 0–100 or not a whole number answers 400 input.invalid naming page', async () => {
    for (const page of ['101', '-1', 'x', '1.5', '1e2', '%20']) {
      assertError(await visitor(t.board).get(`/api/entry/feed/${page}`), 400, 'input.invalid', 'page');
    }
  });
});

describe('thread', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  test('lists the ancestors root first', async () => {
    const a = await post(t.members.Anna, 'A');
    const b = await post(t.members.Anna, 'B', a);
    const c = await post(t.members.Anna, 'C', b);
    const d = await post(t.members.Anna, 'D', c);
    const thread = await visitor(t.board).get(`/api/entry/${d}/thread`);
    assert.equal(thread.status, 200);
    assertDocumented(thread);
    assert.equal(thread.body.entry.pid, d);
    assert.deepEqual(
      thread.body.ancestors.map((e: { pid: number }) => e.pid),
      [a, b, c],
    );
    assert.deepEqual(
      Object.keys(thread.body.ancestors[0])
        .filter((k) => k !== 'latest')
        .sort(),
      entryFields,
    );
    assert.deepEqual(thread.body.replies, []);
  });

  test('shows at most 100 direct replies, the most recently active first, each with its latest', async () => {
    const root = await post(t.members.Anna, 'viele Antworten');
    const replies: number[] = [];
    for (let i = 0; i < 105; i++) {
      t.board.clock.advance(1);
      replies.push(await post(t.members.Anna, `Antwort ${i}`, root));
    }
    t.board.clock.advance(1);
    const revived = await post(t.members.Anna, 'belebt die älteste Antwort', replies[0]!);
    t.board.clock.advance(1);
    const nested = await post(t.members.Anna, 'tiefer', revived);

    const thread = await visitor(t.board).get(`/api/entry/${root}/thread`);
    assert.equal(thread.status, 200);
    const shown = thread.body.replies as { pid: number; last_activity: number; reply_to: number; latest?: unknown }[];
    assert.equal(shown.length, 100);
    assert.ok(
      shown.every((e) => e.reply_to === root),
      'direct replies only',
    );
    assert.equal(shown[0]!.pid, replies[0], 'the reply with the newest activity comes first');
    assert.deepEqual(latestOf(shown[0] as never), { pid: nested, skipped: 1 });
    assert.deepEqual(
      shown.slice(1).map((e) => e.pid),
      replies.slice(6).reverse(),
      'then by last_activity, the least active left out',
    );
    assert.ok(
      shown.slice(1).every((e) => !('latest' in e)),
      'no latest without replies',
    );
    assert.equal(entryRow(t.board, root)!.reply_count, 105);
  });

  test('replies with the same last_activity come by pid, highest first', async () => {
    const root = await post(t.members.Anna, 'gleichzeitig');
    const first = await post(t.members.Anna, 'eins', root);
    const second = await post(t.members.Anna, 'zwei', root);
    const thread = await visitor(t.board).get(`/api/entry/${root}/thread`);
    assert.deepEqual(
      thread.body.replies.map((e: { pid: number }) => e.pid),
      [second, first],
    );
  });
});
