import assert from 'node:assert/strict';
import type { TestBoard } from './board.ts';
import type { Client } from './client.ts';

/** Shared by the entry tests (test/api/entries, latest, account-deletion, response-cache, ...): `latest` and the feed. */

/** docs/API.md "Entry": `latest` looks at most 50 levels down. */
export const latestMaxDepth = 50;

export interface ExpectedLatest {
  pid: number;
  skipped: number;
}

/**
 * `latest` of every entry recomputed the slow, obvious way from the stored tree: walk each
 * subtree level by level down to 50 levels and keep the newest live entry (created_at, then pid).
 */
export function bruteForceLatest(board: TestBoard): Map<number, ExpectedLatest | undefined> {
  const rows = board.app.services.db.all<{ pid: number; reply_to: number; created_at: number; deleted: number }>(
    'SELECT pid, reply_to, created_at, deleted FROM entries',
  );
  const byPid = new Map(rows.map((r) => [r.pid, r]));
  const children = new Map<number, number[]>();
  for (const r of rows) {
    if (!children.has(r.reply_to)) children.set(r.reply_to, []);
    children.get(r.reply_to)!.push(r.pid);
  }
  const result = new Map<number, ExpectedLatest | undefined>();
  for (const r of rows) {
    let best: (ExpectedLatest & { created_at: number }) | undefined;
    let level = children.get(r.pid) ?? [];
    for (let dist = 1; dist <= latestMaxDepth && level.length > 0; dist++) {
      for (const pid of level) {
        const c = byPid.get(pid)!;
        if (c.deleted) continue;
        if (!best || c.created_at > best.created_at || (c.created_at === best.created_at && c.pid > best.pid)) {
          best = { pid: c.pid, skipped: dist - 1, created_at: c.created_at };
        }
      }
      level = level.flatMap((pid) => children.get(pid) ?? []);
    }
    result.set(r.pid, best && { pid: best.pid, skipped: best.skipped });
  }
  return result;
}

/** The stored `latest` pointer of every entry must equal the brute-force answer. */
export function assertStoredLatestMatchesBruteForce(board: TestBoard, note = ''): void {
  const expected = bruteForceLatest(board);
  const stored = board.app.services.db.all<{ pid: number; latest_pid: number; latest_skipped: number }>(
    'SELECT pid, latest_pid, latest_skipped FROM entries',
  );
  for (const row of stored) {
    const want = expected.get(row.pid);
    const got = row.latest_pid === 0 ? undefined : { pid: row.latest_pid, skipped: row.latest_skipped };
    assert.deepEqual(got, want, `latest of entry ${row.pid} ${note}`);
  }
}

/** `{pid, skipped}` of an Entry's `latest` as the API shows it, or undefined. */
export function latestOf(entry: { latest?: { entry: { pid: number }; skipped: number } }): ExpectedLatest | undefined {
  return entry.latest && { pid: entry.latest.entry.pid, skipped: entry.latest.skipped };
}

/** Every page of the feed, concatenated, until the first `[]`. */
export async function wholeFeed(client: Client): Promise<any[]> {
  const all: any[] = [];
  for (let page = 0; page <= 100; page++) {
    const answer = await client.get(`/api/entry/feed/${page}`);
    assert.equal(answer.status, 200, answer.text);
    if (answer.body.length === 0) break;
    all.push(...answer.body);
  }
  return all;
}

/** The Entry fields (docs/API.md "Entry"), in a stable order, for shape checks. */
export const entryFields = [
  'avatar',
  'bump_count',
  'content',
  'created_at',
  'deleted',
  'filepath',
  'last_activity',
  'last_bump',
  'pid',
  'reply_count',
  'reply_to',
  'uid',
  'username',
];
