import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { migrate, schemaVersion } from '../../lib/db/schema.ts';

/** The migration before the accounts one ("// 6: accounts (issue 16)" in lib/db/schema.ts). */
const beforeAccounts = 5;

test('the accounts migration keeps every session and gives each a random public id', () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db, beforeAccounts);
  db.prepare(
    "INSERT INTO users (uid, username, username_key, pass_hash, created_at) VALUES (1, 'Alt', 'alt', 'x', 0)",
  ).run();
  const insert = db.prepare(
    'INSERT INTO sessions (token_hash, uid, created_at, expires, description) VALUES (?, 1, ?, ?, ?)',
  );
  insert.run(Buffer.alloc(32, 1), 10, 100, 'Firefox');
  insert.run(Buffer.alloc(32, 2), 20, 200, 'curl/8');

  migrate(db);
  assert.equal(db.pragma('user_version', { simple: true }), schemaVersion);
  const rows = db
    .prepare('SELECT token_hash, public_id, uid, created_at, expires, description FROM sessions ORDER BY created_at')
    .all() as {
    token_hash: Buffer;
    public_id: string;
    uid: number;
    created_at: number;
    expires: number;
    description: string;
  }[];
  assert.deepEqual(
    rows.map(({ public_id: _, ...row }) => row),
    [
      { token_hash: Buffer.alloc(32, 1), uid: 1, created_at: 10, expires: 100, description: 'Firefox' },
      { token_hash: Buffer.alloc(32, 2), uid: 1, created_at: 20, expires: 200, description: 'curl/8' },
    ],
  );
  assert.equal(new Set(rows.map((row) => row.public_id)).size, 2);
  for (const row of rows) assert.match(row.public_id, /^[0-9a-f]{32}$/);

  db.prepare('DELETE FROM users WHERE uid = 1').run();
  assert.equal(
    (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n,
    0,
    'sessions still go with their user',
  );
  db.close();
});
