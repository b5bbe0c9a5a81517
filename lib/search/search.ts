import { feedPageSize } from '../product.ts';
import { authorTerm } from '../text/search-terms.ts';

/** Runs the match statement: on a search thread in the server (lib/search/threads.ts), in the caller's thread in the benchmark. */
export type MatchRunner = (sql: string, params: unknown[]) => Promise<{ pid: number }[]>;

/**
 * One page of search results: the pids matching the expression, newest first, which is rowid order
 * (pids grow with created_at); FTS5 walks its lists backwards by rowid and stops after the page, so
 * a common word costs no more than a rare one. The caller reads the entries on its own connection.
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
