import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';
import { emptyFolder, holdWriteLock } from '../helpers.ts';

/** lib/db/db.ts createWriteLock: a transaction waits for another connection's write lock with short pauses of its own. */
test("a transaction waits while another connection holds the write lock, runs its body once it is free, and leaves SQLite's busy timeout as it was", async () => {
  const path = join(emptyFolder('board-lock-'), 'board.db');
  const db = openDb(path);
  try {
    db.run('CREATE TABLE t (who TEXT NOT NULL)');
    const holder = await holdWriteLock(path, 300, { table: 't', row: 'holder' });
    let runs = 0;
    db.tx(() => {
      runs++;
      db.run("INSERT INTO t VALUES ('waiter')");
    });
    await holder.released;
    assert.equal(runs, 1, 'the body ran once');
    assert.deepEqual(
      db.all<{ who: string }>('SELECT who FROM t ORDER BY rowid').map((r) => r.who),
      ['holder', 'waiter'],
    );
    assert.equal(db.raw.pragma('busy_timeout', { simple: true }), 5000);
    assert.equal(db.raw.inTransaction, false);
  } finally {
    await db.close();
  }
});

test('a nested transaction is a savepoint inside the outer one, and a throw in the body rolls back', async () => {
  const db = openDb(join(emptyFolder('board-lock-'), 'board.db'));
  try {
    db.run('CREATE TABLE t (who TEXT NOT NULL)');
    db.tx(() => {
      db.run("INSERT INTO t VALUES ('outer')");
      assert.throws(
        () =>
          db.tx(() => {
            db.run("INSERT INTO t VALUES ('inner')");
            throw new Error('inner fails');
          }),
        /inner fails/,
      );
    });
    assert.throws(
      () =>
        db.tx(() => {
          db.run("INSERT INTO t VALUES ('lost')");
          throw new Error('outer fails');
        }),
      /outer fails/,
    );
    assert.deepEqual(
      db.all<{ who: string }>('SELECT who FROM t').map((r) => r.who),
      ['outer'],
    );
    assert.equal(db.raw.inTransaction, false);
  } finally {
    await db.close();
  }
});
