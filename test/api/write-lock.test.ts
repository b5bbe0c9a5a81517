import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, holdWriteLock, limitsOff, post, useBoard } from '../helpers.ts';

/**
 * A write that cannot get the write lock within 5 s (lib/db/db.ts createWriteLock) fails as it did
 * when SQLite's busy handler waited: SQLITE_BUSY "database is locked", answered 500 internal and
 * logged; nothing of it is stored. Once the lock is free, writes go through again.
 */
describe('a write past the lock deadline', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] }); // the limits' own transaction would wait first

  test('answers 500 internal after 5 s of another connection holding the write lock, logs SQLITE_BUSY, and stores nothing', async () => {
    const before = t.board.app.services.db.value('SELECT count(*) FROM entries');
    const holder = await holdWriteLock(t.board.config.dbPath, 6500);
    const answer = await t.members.Anna.post('/api/entry/create', { content: 'wartet auf die Sperre' });
    assertError(answer, 500, 'internal');
    assert.ok(
      t.board.logs.some((line) => line.includes('database is locked')),
      'the log names the lock',
    );
    await holder.released;
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM entries'), before);
    assert.ok((await post(t.members.Anna, 'jetzt frei')) > 0);
  });
});
