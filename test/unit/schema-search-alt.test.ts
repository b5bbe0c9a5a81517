import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { migrate, schemaVersion } from '../../lib/db/schema.ts';
import { authorTerm } from '../../lib/text/search-terms.ts';

/** The migration before image descriptions joined the index ("// 10: search covers image descriptions"). */
const beforeDescriptions = 9;

test('the migration writes the index rows of live described entries again; below the backfill mark and dead ones stay out', () => {
  const db = new Database(':memory:');
  migrate(db, beforeDescriptions);
  db.prepare(
    "INSERT INTO users (uid, username, username_key, pass_hash, created_at) VALUES (1, 'Anna', 'anna', 'x', 0)",
  ).run();
  const insert = db.prepare(
    'INSERT INTO entries (pid, uid, created_at, content, filepath, root, depth, last_activity, deleted, alt) VALUES (?, 1, 0, ?, ?, ?, 0, 0, ?, ?)',
  );
  insert.run(1, 'Altes Bild', 'a.jpg', 1, 0, 'Sonnenblumen am Zaun'); // below the mark: the backfill's
  insert.run(5, 'Urlaubsbild', 'b.jpg', 5, 0, 'Sonnenblumenfeld im Abendlicht');
  insert.run(6, 'Ein Kornfeld', '', 6, 0, '');
  insert.run(7, '', '', 7, 1, 'Sonnenblumen gelöscht');
  db.prepare('DELETE FROM search_backfill').run();
  db.prepare('INSERT INTO search_backfill (next_below, total) VALUES (5, 4)').run();
  // The rows as the code before wrote them: the text alone.
  const row = db.prepare('INSERT INTO search (rowid, text, short, author) VALUES (?, ?, ?, ?)');
  row.run(5, 'Urlaubsbild', '', authorTerm(1));
  row.run(6, 'Ein Kornfeld', '', authorTerm(1));

  migrate(db);
  assert.equal(db.pragma('user_version', { simple: true }), schemaVersion);
  const found = (q: string) =>
    (db.prepare('SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid').all(q) as { rowid: number }[]).map(
      (r) => r.rowid,
    );
  assert.deepEqual(
    found('text : "sonnenblumen"'),
    [5],
    'the description is found; pid 1 waits for the backfill, pid 7 is deleted',
  );
  assert.deepEqual(found('text : "urlaubsbild"'), [5], 'the text is still there, once');
  assert.deepEqual(found('text : "kornfeld"'), [6]);
  assert.deepEqual(found(`author : "${authorTerm(1)}"`), [5, 6]);
});
