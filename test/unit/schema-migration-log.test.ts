import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';
import { migrate, schemaVersion } from '../../lib/db/schema.ts';
import { emptyFolder } from '../helpers.ts';

/** Issue 33: an upgrade says what it did, one line per migration (from, to, how long); a new database is built silently. */
test('each migration of an existing database logs one line with from, to and its time', async () => {
  const path = join(emptyFolder('board-migrate-'), 'board.db');
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  migrate(old, schemaVersion - 3);
  old.close();

  const lines: string[] = [];
  const db = openDb(path, { log: (line) => lines.push(line) });
  await db.close();
  assert.equal(lines.length, 3, lines.join('\n'));
  lines.forEach((line, i) => {
    const from = schemaVersion - 3 + i;
    assert.match(line, new RegExp(`^database: schema ${from} -> ${from + 1} migrated in \\d+ ms$`));
  });

  const again: string[] = [];
  await openDb(path, { log: (line) => again.push(line) }).close();
  assert.deepEqual(again, [], 'nothing to migrate: no line');
  const fresh: string[] = [];
  await openDb(join(emptyFolder('board-migrate-'), 'board.db'), { log: (line) => fresh.push(line) }).close();
  assert.deepEqual(fresh, [], 'a new database is no upgrade');
});
