import { feedPageSize } from '../product.ts';
import { authorTerm } from '../text/search-terms.ts';

/** Runs the match statement: on a search thread in the server (lib/search/threads.ts), in the caller's thread in the benchmark. */
export type MatchRunner = (sql: string, params: unknown[]) => Promise<{ pid: number }[]>;

/**
 * One page of search results (docs/API.md "GET /api/search/{page}"): the pids of entries matching the
 * expression (lib/search/query.ts), newest first, 20 a page. Newest first is rowid order: pids
 * grow with created_at (both are set at insert from one clock), and FTS5 walks its lists
 * backwards by rowid and stops after the page, so a common word costs no more than a rare one.
 * The match is the costly part and runs where `runMatch` puts it; the caller reads the page's
 * entries on its own connection, like the feed's (the index may hold an entry that ended since).
 */
export async function searchPids(
  expression: string,
  authorUid: number | undefined,
  page: number,
  runMatch: MatchRunner,
): Promise<number[]> {
  const match = authorUid === undefined ? expression : `author : "${authorTerm(authorUid)}" AND (${expression})`;
  const rows = await runMatch(
    'SELECT rowid AS pid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?',
    [match, feedPageSize, page * feedPageSize],
  );
  return rows.map((row) => row.pid);
}
