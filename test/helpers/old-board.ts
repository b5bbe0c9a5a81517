import Database from 'better-sqlite3';
import { join } from 'node:path';
import { migrate } from '../../lib/db/schema.ts';

/**
 * A board at schema 7 (before the search index) with entries written straight into SQLite, by
 * one account 'Alt'; an empty text makes a deleted entry. Its next start migrates and has the
 * search backfill index them (lib/search/backfill.ts).
 */
export function oldBoard(dataDir: string, entries: string[]): void {
  const raw = new Database(join(dataDir, 'board.db'));
  migrate(raw, 7);
  raw
    .prepare("INSERT INTO users (uid, username, username_key, pass_hash, created_at) VALUES (1, 'Alt', 'alt', 'x', 1)")
    .run();
  const insert = raw.prepare(
    'INSERT INTO entries (uid, created_at, content, root, depth, last_activity, deleted) VALUES (1, ?, ?, 0, 0, ?, ?)',
  );
  raw.transaction(() => {
    for (const [i, content] of entries.entries()) insert.run(1000 + i, content, 1000 + i, content === '' ? 1 : 0);
  })();
  raw.exec('UPDATE entries SET root = pid');
  raw.close();
}
