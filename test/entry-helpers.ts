import assert from 'node:assert/strict';
import { startBoard, type Answer, type Client, type TestBoard } from './helpers.ts';
import type { StoredEntry } from '../lib/entries.ts';
export type { StoredEntry };

/** Shared by the entry tests (test/api/entries, latest, votes, bump, reports, images, ...). */

export const password = 'correct horse battery';
export const day = 86_400;

/**
 * A board behind a trusted proxy, so every client below gets its own address and the per-IP
 * limits of one test never spill into another.
 */
export function startEntryBoard(env: Record<string, string> = {}): Promise<TestBoard> {
  return startBoard({ BOARD_TRUST_PROXY: '1', ...env });
}

let addressCounter = 0;
/** A fresh anonymous visitor with an address of its own. */
export function visitor(board: TestBoard): Client {
  addressCounter++;
  return board.client({ ip: `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}` });
}

/** Registers a user and logs in for a year (tests move the clock by days). */
export async function member(board: TestBoard, username: string, ip?: string): Promise<Client> {
  const client = ip ? board.client({ ip }) : visitor(board);
  const created = await client.post('/api/auth/newuser', { user: username, pass1: password, pass2: password });
  assert.equal(created.status, 201, created.text);
  const login = await client.post('/api/auth/login', { user: username, pass: password, timeout: 31_536_000 });
  assert.equal(login.status, 200, login.text);
  return client;
}

/** Creates an entry through the API and returns its pid. */
export async function post(client: Client, content: string, replyTo = 0): Promise<number> {
  const answer = await client.post('/api/entry/create', replyTo ? { content, reply_to: replyTo } : { content });
  assert.equal(answer.status, 201, answer.text);
  return answer.body.pid as number;
}

/** Asserts the spec's error shape and code (and field when given). */
export function assertError(answer: Answer, status: number, code: string, field?: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(answer.body?.error?.code, code, answer.text);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.ok(answer.body.error.message.length > 0);
  if (field !== undefined) assert.equal(answer.body.error.field, field);
}


/** The stored row of an entry, straight from the database. */
export function entryRow(board: TestBoard, pid: number): StoredEntry | undefined {
  return board.app.services.db.one<StoredEntry>(
    'SELECT * FROM entries WHERE pid = ?',
    pid,
  );
}

export function entryCount(board: TestBoard): number {
  return board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM entries')!.n;
}

export function uidOf(board: TestBoard, username: string): number {
  return board.app.services.db.one<{ uid: number }>('SELECT uid FROM users WHERE username = ?', username)!.uid;
}

/** SPEC §2: `latest` looks at most 50 levels down. */
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

/** The SPEC §2 Entry fields, in a stable order, for shape checks. */
export const entryFields = [
  'avatar', 'bump_count', 'content', 'created_at', 'deleted', 'filepath', 'last_activity', 'last_bump',
  'pid', 'reply_count', 'reply_to', 'uid', 'username',
];
