import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createUser } from '../../lib/accounts/users.ts';
import { openDb } from '../../lib/db/db.ts';

/** db.value (lib/db/db.ts): the one value of a count or a total, without a row object to unwrap. */

test('db.value answers the first column of the first row, with its parameters, and throws when there is no row', async () => {
  const db = openDb(':memory:');
  try {
    assert.equal(db.value('SELECT count(*) FROM users'), 0);
    createUser(db, 'Anna', 'x', 5);
    assert.equal(db.value('SELECT count(*) FROM users WHERE username = ?', 'Anna'), 1);
    assert.equal(db.value('SELECT created_at, uid FROM users WHERE username = ?', 'Anna'), 5);
    // The same text through one() still answers rows: value's statements are its own.
    assert.deepEqual(db.one('SELECT count(*) AS n FROM users'), { n: 1 });
    assert.throws(() => db.value('SELECT uid FROM users WHERE username = ?', 'Bert'), /db\.value: no row/);
    db.setFault(() => new Error('disk I/O error'));
    assert.throws(() => db.value('SELECT count(*) FROM users'), /disk I\/O error/);
    db.setFault(undefined);
  } finally {
    await db.close();
  }
});
