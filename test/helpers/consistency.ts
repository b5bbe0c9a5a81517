import type Database from 'better-sqlite3';
import { latestMaxDepth } from '../../lib/product.ts';
import type { StoredEntry as Row } from '../../lib/entries/entries.ts';
import { authorTerm } from '../../lib/text/search-terms.ts';

/**
 * Everything the board keeps denormalised, recomputed from the base rows (entries' tree, vote
 * rows, users) and compared with what is stored: counters, reply counts, root and depth,
 * `latest` (brute force), tallies, last_activity, plus SQLite's own integrity and foreign-key
 * checks. Returns the problems found (empty when the database is whole), at most `limit`.
 */
export function consistencyProblems(db: Database.Database, limit = 20): string[] {
  const problems: string[] = [];
  const report = (problem: string) => {
    if (problems.length < limit) problems.push(problem);
  };

  const integrity = db.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') report(`integrity_check: ${String(integrity)}`);
  for (const row of db.pragma('foreign_key_check') as unknown[]) report(`foreign_key_check: ${JSON.stringify(row)}`);

  const entries = db.prepare('SELECT * FROM entries').all() as Row[];
  const byPid = new Map(entries.map((e) => [e.pid, e]));
  const children = new Map<number, Row[]>();
  for (const e of entries) {
    if (!children.has(e.reply_to)) children.set(e.reply_to, []);
    children.get(e.reply_to)!.push(e);
  }
  const votes = db.prepare('SELECT pid, uid, yes FROM votes').all() as { pid: number; uid: number; yes: number }[];
  const users = new Set((db.prepare('SELECT uid FROM users').all() as { uid: number }[]).map((u) => u.uid));

  const counters = new Map(
    (db.prepare('SELECT name, value FROM counters').all() as { name: string; value: number }[]).map((c) => [
      c.name,
      c.value,
    ]),
  );
  const live = entries.filter((e) => !e.deleted);
  const expectedCounters: Record<string, number> = {
    users: users.size,
    entries: live.length,
    toplevel: live.filter((e) => e.reply_to === 0).length,
    replies: live.filter((e) => e.reply_to !== 0).length,
    votes_yes: votes.filter((v) => v.yes === 1).length,
    votes_no: votes.filter((v) => v.yes === 0).length,
  };
  for (const [name, value] of Object.entries(expectedCounters)) {
    if (counters.get(name) !== value) report(`counter ${name} is ${counters.get(name)}, the rows say ${value}`);
  }

  const tally = new Map<number, { yes: number; no: number }>();
  for (const v of votes) {
    if (!byPid.has(v.pid)) report(`vote of user ${v.uid} on missing entry ${v.pid}`);
    if (!users.has(v.uid)) report(`vote on entry ${v.pid} by missing user ${v.uid}`);
    const t = tally.get(v.pid) ?? { yes: 0, no: 0 };
    if (v.yes) t.yes++;
    else t.no++;
    tally.set(v.pid, t);
  }

  for (const e of entries) {
    const kids = children.get(e.pid) ?? [];
    const parent = e.reply_to ? byPid.get(e.reply_to) : undefined;
    if (e.reply_to && !parent) report(`entry ${e.pid} replies to missing entry ${e.reply_to}`);
    const root = parent ? parent.root : e.pid;
    const depth = parent ? parent.depth + 1 : 0;
    if (e.root !== root || e.depth !== depth)
      report(`entry ${e.pid}: root/depth ${e.root}/${e.depth}, expected ${root}/${depth}`);
    if (e.reply_count !== kids.length)
      report(`entry ${e.pid}: reply_count ${e.reply_count}, ${kids.length} replies exist`);
    const t = tally.get(e.pid) ?? { yes: 0, no: 0 };
    if (e.votes_yes !== t.yes || e.votes_no !== t.no)
      report(`entry ${e.pid}: tally ${e.votes_yes}/${e.votes_no}, vote rows ${t.yes}/${t.no}`);
    if (e.last_activity < e.created_at) report(`entry ${e.pid}: last_activity before created_at`);
    for (const kid of kids) {
      if (kid.last_activity > e.last_activity)
        report(
          `entry ${e.pid}: last_activity ${e.last_activity} older than its reply ${kid.pid}'s ${kid.last_activity}`,
        );
    }
    // A removed entry (the moderation's) keeps them stored for a restore; an author's deletion erases them.
    if (e.deleted && !e.removed && (e.content || e.filepath || e.link))
      report(`deleted entry ${e.pid} still has content, file or link`);
    if (e.removed && !e.deleted) report(`removed entry ${e.pid} is not deleted`);
    if (e.uid === 0 ? !e.deleted : !users.has(e.uid)) report(`entry ${e.pid} belongs to missing user ${e.uid}`);
    const want = newestLiveDescendant(e.pid, children);
    const got = e.latest_pid === 0 ? undefined : { pid: e.latest_pid, skipped: e.latest_skipped };
    if (want?.pid !== got?.pid || want?.skipped !== got?.skipped) {
      report(`entry ${e.pid}: latest ${JSON.stringify(got)}, brute force ${JSON.stringify(want)}`);
    }
  }
  searchIndexProblems(db, live).forEach(report);
  return problems;
}

/**
 * The search index (lib/search/index.ts) holds exactly the live entries at or above the
 * backfill's mark, and a sample of them by their current text and author.
 */
export function searchIndexProblems(
  db: Database.Database,
  live = db.prepare('SELECT * FROM entries WHERE deleted = 0').all() as Row[],
): string[] {
  const problems: string[] = [];
  const byPid = new Map(live.map((e) => [e.pid, e]));
  const mark =
    (db.prepare('SELECT next_below FROM search_backfill').get() as { next_below: number } | undefined)?.next_below ?? 0;
  const expected = live
    .filter((e) => e.pid >= mark)
    .map((e) => e.pid)
    .sort((a, b) => a - b);
  const indexed = (db.prepare('SELECT rowid AS pid FROM search ORDER BY rowid').all() as { pid: number }[]).map(
    (r) => r.pid,
  );
  const expectedSet = new Set(expected);
  const indexedSet = new Set(indexed);
  const missing = expected.filter((pid) => !indexedSet.has(pid));
  const extra = indexed.filter((pid) => !expectedSet.has(pid));
  if (missing.length) problems.push(`search index misses live entries ${missing.slice(0, 5).join(', ')}`);
  if (extra.length)
    problems.push(
      `search index holds entries that are not live (or below the backfill mark) ${extra.slice(0, 5).join(', ')}`,
    );
  const matches = db.prepare('SELECT rowid FROM search WHERE search MATCH ? AND rowid = ?');
  const step = Math.max(1, Math.floor(expected.length / 100));
  for (let i = 0; i < expected.length; i += step) {
    const entry = byPid.get(expected[i]!)!;
    const words = [...entry.content.normalize('NFC')].slice(0, 20).join('');
    const query = `author : "${authorTerm(entry.uid)}"${[...words].length >= 3 ? ` AND text : "${words.replaceAll('"', '""')}"` : ''}`;
    if (!matches.get(query, entry.pid))
      problems.push(`search index row of entry ${entry.pid} does not match its current text and author`);
  }
  return problems;
}

/** Brute force `latest`: the newest live entry 1..50 levels below (created_at, then pid), level by level. */
function newestLiveDescendant(pid: number, children: Map<number, Row[]>): { pid: number; skipped: number } | undefined {
  let best: { pid: number; skipped: number; created_at: number } | undefined;
  let level = children.get(pid) ?? [];
  for (let dist = 1; dist <= latestMaxDepth && level.length > 0; dist++) {
    for (const c of level) {
      if (c.deleted) continue;
      if (!best || c.created_at > best.created_at || (c.created_at === best.created_at && c.pid > best.pid)) {
        best = { pid: c.pid, skipped: dist - 1, created_at: c.created_at };
      }
    }
    level = level.flatMap((c) => children.get(c.pid) ?? []);
  }
  return best && { pid: best.pid, skipped: best.skipped };
}

/** Every table's rows, for before/after comparisons (a failed request must change nothing). */
export function snapshotRows(
  db: Database.Database,
  tables = ['users', 'sessions', 'reset_links', 'entries', 'votes', 'reports', 'counters', 'pending_deletions'],
): Record<string, unknown[]> {
  const snapshot: Record<string, unknown[]> = {};
  for (const table of tables) snapshot[table] = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
  return snapshot;
}
