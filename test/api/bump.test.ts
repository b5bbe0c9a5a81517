import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, assertError, day, entryRow, limitsOff, post, useBoard, visitor } from '../helpers.ts';
import { latestOf } from '../helpers/entries.ts';

describe('bump cooldown', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('a never bumped entry may be bumped at once; the answer has bump_count, last_bump, last_activity and retry_after 1 day', async () => {
    const pid = await post(t.members.Anna, 'hoch damit');
    assert.equal(entryRow(t.board, pid)!.last_bump, 0, 'last_bump of a never bumped entry is 0');
    t.board.clock.advance(30);
    const now = t.board.clock.now();
    const answer = await t.members.Bert.post(`/api/entry/${pid}/bump`);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { pid, bump_count: 1, last_bump: now, last_activity: now, retry_after: day });
    const row = entryRow(t.board, pid)!;
    assert.equal(row.bump_count, 1);
    assert.equal(row.last_bump, now);
    assert.equal(row.last_activity, now);
  });

  test('the cooldown grows by one day with each bump; during it 429 entry.bump_cooldown with Retry-After equal to retry_after', async () => {
    const pid = await post(t.members.Anna, 'immer wieder');
    for (let n = 1; n <= 4; n++) {
      const bumped = await t.members.Bert.post(`/api/entry/${pid}/bump`);
      assert.equal(bumped.status, 200, `bump ${n}: ${bumped.text}`);
      assert.equal(bumped.body.bump_count, n);
      assert.equal(bumped.body.retry_after, n * day, `after bump ${n} the next is ${n} days away`);
      const bumpedAt = t.board.clock.now();

      // Right away, after an hour, and one second before the cooldown ends: refused.
      for (const wait of [0, 3600, n * day - 1]) {
        t.board.clock.set(bumpedAt + wait);
        const refused = await t.members.Bert.post(`/api/entry/${pid}/bump`);
        assertError(refused, 429, 'entry.bump_cooldown');
        assert.equal(refused.body.retry_after, n * day - wait);
        assert.equal(refused.headers.get('retry-after'), String(refused.body.retry_after));
        assert.equal(refused.body.bump_count, n);
        assert.equal(entryRow(t.board, pid)!.bump_count, n, 'a refused bump changes nothing');
        assert.equal(entryRow(t.board, pid)!.last_bump, bumpedAt);
      }
      // Exactly when the cooldown ends: allowed again (the next loop round bumps).
      t.board.clock.set(bumpedAt + n * day);
    }
  });

  test('the author may bump their own entry', async () => {
    const pid = await post(t.members.Anna, 'selbst hoch');
    const answer = await t.members.Anna.post(`/api/entry/${pid}/bump`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.bump_count, 1);
  });

  test('the cooldown belongs to the entry, not to the user who bumps', async () => {
    const pid = await post(t.members.Anna, 'für alle');
    assert.equal((await t.members.Bert.post(`/api/entry/${pid}/bump`)).status, 200);
    assertError(await t.members.Anna.post(`/api/entry/${pid}/bump`), 429, 'entry.bump_cooldown');
  });

  test('without a session answers 401 auth.required; an unknown entry 404 entry.not_found', async () => {
    const pid = await post(t.members.Anna, 'geschützt');
    assertError(await visitor(t.board).post(`/api/entry/${pid}/bump`), 401, 'auth.required');
    assert.equal(entryRow(t.board, pid)!.bump_count, 0);
    assertError(await t.members.Bert.post('/api/entry/987654/bump'), 404, 'entry.not_found');
  });
});

describe('bumping moves the thread', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('last_activity of the entry and all its ancestors moves to now, and the feed reorders', async () => {
    const old = await post(t.members.Anna, 'alt');
    t.board.clock.advance(1);
    const a = await post(t.members.Anna, 'A');
    t.board.clock.advance(1);
    const b = await post(t.members.Bert, 'B', a);
    t.board.clock.advance(1);
    const c = await post(t.members.Anna, 'C', b);
    const sibling = await post(t.members.Anna, 'daneben', a);
    t.board.clock.advance(1);
    const newer = await post(t.members.Bert, 'neu');
    const feedPids = async () =>
      (await visitor(t.board).get('/api/entry/feed/0')).body.map((e: { pid: number }) => e.pid);
    assert.deepEqual(await feedPids(), [newer, a, old]);

    t.board.clock.advance(100);
    const siblingActivity = entryRow(t.board, sibling)!.last_activity;
    assert.equal((await t.members.Bert.post(`/api/entry/${c}/bump`)).status, 200);
    const now = t.board.clock.now();
    for (const pid of [c, b, a]) assert.equal(entryRow(t.board, pid)!.last_activity, now, `last_activity of ${pid}`);
    assert.equal(entryRow(t.board, sibling)!.last_activity, siblingActivity, 'entries outside the path keep theirs');
    assert.deepEqual(await feedPids(), [a, newer, old]);

    t.board.clock.advance(1);
    assert.equal((await t.members.Anna.post(`/api/entry/${old}/bump`)).status, 200);
    assert.deepEqual(await feedPids(), [old, a, newer]);

    const thread = await visitor(t.board).get(`/api/entry/${a}/thread`);
    assert.deepEqual(
      thread.body.replies.map((e: { pid: number }) => e.pid),
      [b, sibling],
      'the bumped path comes first in the thread',
    );
  });

  test('a bump does not change latest (that goes by creation time)', async () => {
    const a = await post(t.members.Anna, 'A');
    t.board.clock.advance(1);
    const first = await post(t.members.Bert, 'erste', a);
    t.board.clock.advance(1);
    const second = await post(t.members.Bert, 'zweite', a);
    t.board.clock.advance(1);
    assert.equal((await t.members.Anna.post(`/api/entry/${first}/bump`)).status, 200);
    const feed = (await visitor(t.board).get('/api/entry/feed/0')).body;
    assert.deepEqual(latestOf(feed.find((e: { pid: number }) => e.pid === a)), { pid: second, skipped: 0 });
  });
});
