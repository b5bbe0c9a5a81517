import type { Db } from '../db/db.ts';
import { feedPageSize } from '../limits/product.ts';
import { readLiveEntriesWithLatest, type EntryJson } from '../entries/reads.ts';
import { authorTerm } from './terms.ts';

/** Runs the match statement: on a search thread in the server (lib/search/threads.ts), in the caller's thread in the benchmark. */
export type MatchRunner = (sql: string, params: unknown[]) => Promise<{ pid: number }[]>;

/**
 * One page of search results (docs/API.md "GET /api/search/{page}"): live entries matching the
 * expression (lib/search/query.ts), newest first, 20 a page. Newest first is rowid order: pids
 * grow with created_at (both are set at insert from one clock), and FTS5 walks its lists
 * backwards by rowid and stops after the page, so a common word costs no more than a rare one.
 * The match is the costly part and runs where `runMatch` puts it; the page's 20 entries are read
 * on the caller's connection, like the feed's.
 */
export async function searchEntries(
  db: Db,
  expression: string,
  authorUid: number | undefined,
  page: number,
  runMatch: MatchRunner,
): Promise<EntryJson[]> {
  const match = authorUid === undefined ? expression : `author : "${authorTerm(authorUid)}" AND (${expression})`;
  const pids = await runMatch(
    'SELECT rowid AS pid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?',
    [match, feedPageSize, page * feedPageSize],
  );
  return readLiveEntriesWithLatest(
    db,
    pids.map((row) => row.pid),
  );
}
