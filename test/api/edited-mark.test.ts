import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, entryRow, limitsOff, post, useBoard, visitor } from '../helpers.ts';

/** docs/API.md "Entry": `edited_at` is set by every edit and absent on entries never edited. */
describe('the edited mark', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  const threadEntry = async (pid: number) => (await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry;

  test('an entry never edited has no edited_at anywhere it is shown', async () => {
    const pid = await post(t.members.Anna, 'unverändert');
    const reply = await post(t.members.Bert, 'Antwort', pid);
    assert.equal('edited_at' in (await threadEntry(pid)), false);
    const feed = (await visitor(t.board).get('/api/entry/feed/0')).body;
    const item = feed.find((e: { pid: number }) => e.pid === pid);
    assert.equal('edited_at' in item, false);
    assert.equal('edited_at' in item.latest.entry, false);
    assert.equal('edited_at' in (await threadEntry(reply)), false);
    assert.equal(entryRow(t.board, pid)!.edited_at, 0);
  });

  test('every edit sets edited_at to its time, shown in the thread, the feed, its latest and the user feed', async () => {
    const pid = await post(t.members.Anna, 'erste Fassung');
    const reply = await post(t.members.Bert, 'Antwort', pid);
    const created = t.board.clock.now();
    t.board.clock.advance(120);
    assert.equal(
      (await t.members.Bert.post(`/api/entry/${reply}/edit`, { content: 'Antwort, bearbeitet' })).status,
      200,
    );
    const thread = await visitor(t.board).get(`/api/entry/${reply}/thread`);
    assertDocumented(thread);
    assert.equal(thread.body.entry.edited_at, created + 120);
    const feedAnswer = await visitor(t.board).get('/api/entry/feed/0');
    assertDocumented(feedAnswer);
    const feed = feedAnswer.body;
    assert.equal(feed.find((e: { pid: number }) => e.pid === pid).latest.entry.edited_at, created + 120);
    assert.equal('edited_at' in feed.find((e: { pid: number }) => e.pid === pid), false, 'the parent was not edited');

    t.board.clock.advance(60);
    assert.equal(
      (await t.members.Bert.post(`/api/entry/${reply}/edit`, { content: 'Antwort, zweimal bearbeitet' })).status,
      200,
    );
    assert.equal((await threadEntry(reply)).edited_at, created + 180, 'the last edit counts');
    const userFeed = (await visitor(t.board).get('/api/u/Bert/feed/0')).body;
    assert.equal(userFeed.find((e: { pid: number }) => e.pid === reply).edited_at, created + 180);
    assert.equal(entryRow(t.board, reply)!.created_at, created, 'created_at stays');
  });

  test('a deleted entry shows no edited_at', async () => {
    const pid = await post(t.members.Anna, 'gleich weg');
    assert.equal(
      (await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'gleich weg, bearbeitet' })).status,
      200,
    );
    assert.ok((await threadEntry(pid)).edited_at);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assert.equal('edited_at' in (await threadEntry(pid)), false);
  });
});
