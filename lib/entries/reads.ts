import type { Db } from '../db/db.ts';
import { usablePreviews, type PreviewJson } from '../preview/store.ts';
import { feedPageSize, maxNearAncestors, maxThreadReplies } from '../product.ts';

export interface EntryRow {
  pid: number;
  uid: number;
  created_at: number;
  content: string;
  filepath: string;
  reply_to: number;
  root: number;
  depth: number;
  reply_count: number;
  last_activity: number;
  deleted: number;
  bump_count: number;
  last_bump: number;
  link: string;
  /** 1 when the moderation removed it (then deleted is 1 too, but content, file and link stay stored). */
  removed: number;
  removed_reason: string;
  alt: string;
}

export interface EntryJson extends Omit<EntryRow, 'root' | 'depth' | 'link' | 'removed' | 'removed_reason' | 'alt'> {
  username: string;
  avatar: string;
  alt?: string;
  removed?: 1;
  removed_reason?: string;
  edited_at?: number;
  preview?: PreviewJson;
  latest?: { entry: EntryJson; skipped: number };
  remote?: { actor: string; instance: string; url: string };
  shares?: number;
}

interface EntryReadRow
  extends Omit<
    EntryJson,
    'preview' | 'latest' | 'removed' | 'removed_reason' | 'edited_at' | 'alt' | 'remote' | 'shares'
  > {
  remote: string | null;
  shares: number;
  edited_at: number;
  latest_pid: number;
  latest_skipped: number;
  link: string;
  removed: number;
  removed_reason: string;
  alt: string;
}

const entryReadColumns = `
  SELECT e.pid, e.uid, e.created_at, e.content, e.filepath, e.reply_to, e.reply_count, e.last_activity,
         e.deleted, e.bump_count, e.last_bump, e.latest_pid, e.latest_skipped, e.link, e.removed, e.removed_reason, e.edited_at, e.alt,
         coalesce(u.username, '') AS username, coalesce(u.avatar, '') AS avatar,
         (SELECT json_object('actor', r.actor_id, 'instance', r.host, 'url', r.url) FROM remote_entries r WHERE r.pid = e.pid) AS remote,
         (SELECT count(*) FROM remote_reactions s WHERE s.kind = 'share' AND s.pid = e.pid) AS shares`;
const entryReadSelect = `${entryReadColumns} FROM entries e LEFT JOIN users u ON u.uid = e.uid`;

type Previews = Map<string, PreviewJson>;

function previewsOf(db: Db, rows: Iterable<EntryReadRow>): Previews {
  const links: string[] = [];
  for (const row of rows) if (row.link && !row.deleted) links.push(row.link);
  return usablePreviews(db, links);
}

/**
 * The one place an Entry's JSON is made. A removed entry keeps its text and image stored for a
 * restore, so a deleted row's content and file are blanked here, not only in storage.
 */
function toJson(row: EntryReadRow, previews: Previews): EntryJson {
  const json: EntryJson = {
    pid: row.pid,
    uid: row.uid,
    created_at: row.created_at,
    content: row.deleted ? '' : row.content,
    filepath: row.deleted ? '' : row.filepath,
    reply_to: row.reply_to,
    reply_count: row.reply_count,
    last_activity: row.last_activity,
    deleted: row.deleted,
    bump_count: row.bump_count,
    last_bump: row.last_bump,
    username: row.username,
    avatar: row.avatar,
  };
  // The description goes with the image: a deleted or removed entry shows neither.
  if (row.alt && !row.deleted && row.filepath) json.alt = row.alt;
  if (row.removed) Object.assign(json, { removed: 1, removed_reason: row.removed_reason });
  if (row.edited_at && !row.deleted) json.edited_at = row.edited_at;
  if (row.remote) json.remote = JSON.parse(row.remote);
  if (row.shares) json.shares = row.shares;
  // A deleted entry never shows a preview (its link is blanked too, this is the second lock).
  const preview = row.deleted ? undefined : previews.get(row.link);
  if (preview) json.preview = preview;
  return json;
}

function rowsByPid(db: Db, pids: number[]): Map<number, EntryReadRow> {
  if (pids.length === 0) return new Map();
  const rows = db.all<EntryReadRow>(
    `${entryReadSelect} WHERE e.pid IN (SELECT value FROM json_each(?))`,
    JSON.stringify(pids),
  );
  return new Map(rows.map((row) => [row.pid, row]));
}

function latestRowsOf(db: Db, rows: EntryReadRow[]): Map<number, EntryReadRow> {
  return rowsByPid(
    db,
    rows.map((r) => r.latest_pid).filter((pid) => pid !== 0),
  );
}

function withLatest(row: EntryReadRow, latestRows: Map<number, EntryReadRow>, previews: Previews): EntryJson {
  const json = toJson(row, previews);
  const latest = latestRows.get(row.latest_pid);
  if (latest && !latest.deleted) json.latest = { entry: toJson(latest, previews), skipped: row.latest_skipped };
  return json;
}

/**
 * GET /api/entry/feed/{page}: top-level threads by last activity. A deleted top-level entry
 * is left out unless something live still hangs below it (then its thread is worth showing).
 */
export function readFeedPage(db: Db, page: number): EntryJson[] {
  // INDEXED BY: otherwise the planner may pick the (reply_to, pid) index for reply_to = 0 and
  // sort every top-level entry of the board; the partial feed index reads just one page of rows.
  const rows = db.all<EntryReadRow>(
    `${entryReadColumns} FROM entries e INDEXED BY entries_feed LEFT JOIN users u ON u.uid = e.uid
     WHERE e.reply_to = 0 AND (e.deleted = 0 OR e.latest_pid <> 0)
     ORDER BY e.last_activity DESC, e.pid DESC LIMIT ? OFFSET ?`,
    feedPageSize,
    page * feedPageSize,
  );
  const latestRows = latestRowsOf(db, rows);
  const previews = previewsOf(db, [...rows, ...latestRows.values()]);
  return rows.map((row) => withLatest(row, latestRows, previews));
}

export interface ThreadJson {
  entry: EntryJson;
  ancestors: EntryJson[];
  ancestors_skipped?: number;
  replies: EntryJson[];
}

export function readThread(db: Db, pid: number): ThreadJson | undefined {
  const [entry] = db.all<EntryReadRow & { root: number; depth: number }>(
    `${entryReadColumns}, e.root, e.depth FROM entries e LEFT JOIN users u ON u.uid = e.uid WHERE e.pid = ?`,
    pid,
  );
  if (!entry) return undefined;
  const near = db.all<EntryReadRow>(
    `WITH RECURSIVE up(pid, dist) AS (
       SELECT reply_to, 1 FROM entries WHERE pid = ? AND reply_to <> 0
       UNION ALL
       SELECT e.reply_to, up.dist + 1 FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0 AND up.dist < ?
     )
     ${entryReadColumns} FROM up JOIN entries e ON e.pid = up.pid LEFT JOIN users u ON u.uid = e.uid ORDER BY up.dist DESC`,
    pid,
    maxNearAncestors,
  );
  const reachedRoot = near.length === 0 || near[0]!.reply_to === 0;
  const ancestors = reachedRoot
    ? near
    : [...db.all<EntryReadRow>(`${entryReadSelect} WHERE e.pid = ?`, entry.root), ...near];
  const skipped = entry.depth - ancestors.length;
  const replies = db.all<EntryReadRow>(
    `${entryReadSelect} WHERE e.reply_to = ? ORDER BY e.last_activity DESC, e.pid DESC LIMIT ?`,
    pid,
    maxThreadReplies,
  );
  const latestRows = latestRowsOf(db, replies);
  const previews = previewsOf(db, [entry, ...ancestors, ...replies, ...latestRows.values()]);
  const thread: ThreadJson = {
    entry: toJson(entry, previews),
    ancestors: ancestors.map((row) => toJson(row, previews)),
    replies: [],
  };
  if (skipped > 0) thread.ancestors_skipped = skipped;
  thread.replies = replies.map((row) => withLatest(row, latestRows, previews));
  return thread;
}

export function readUserFeedPage(db: Db, uid: number, page: number): { entries: EntryJson[]; roots: number[] } {
  const rows = db.all<EntryReadRow & { root: number }>(
    `${entryReadColumns}, e.root FROM entries e LEFT JOIN users u ON u.uid = e.uid WHERE e.uid = ? AND e.deleted = 0 ORDER BY e.pid DESC LIMIT ? OFFSET ?`,
    uid,
    feedPageSize,
    page * feedPageSize,
  );
  const previews = previewsOf(db, rows);
  return { entries: rows.map((row) => toJson(row, previews)), roots: [...new Set(rows.map((row) => row.root))] };
}

export function readEntriesByPid(db: Db, pids: number[]): Map<number, EntryJson> {
  const rows = rowsByPid(db, pids);
  const previews = previewsOf(db, rows.values());
  return new Map([...rows].map(([pid, row]) => [pid, toJson(row, previews)]));
}

export function readLiveEntriesWithLatest(db: Db, pids: number[]): EntryJson[] {
  const byPid = rowsByPid(db, pids);
  const rows = pids
    .map((pid) => byPid.get(pid))
    .filter((row): row is EntryReadRow => row !== undefined && !row.deleted);
  const latestRows = latestRowsOf(db, rows);
  const previews = previewsOf(db, [...rows, ...latestRows.values()]);
  return rows.map((row) => withLatest(row, latestRows, previews));
}

export function withEntries<R extends { pid: number }>(
  db: Db,
  rows: R[],
  omitPid: true,
): (Omit<R, 'pid'> & { entry: EntryJson })[];
export function withEntries<R extends { pid: number }>(
  db: Db,
  rows: R[],
  omitPid?: false,
): (R & { entry: EntryJson })[];
export function withEntries<R extends { pid: number }>(db: Db, rows: R[], omitPid = false) {
  const entries = readEntriesByPid(
    db,
    rows.map((row) => row.pid),
  );
  return rows.map((row) => {
    const entry = entries.get(row.pid)!;
    if (!omitPid) return { ...row, entry };
    const { pid: _pid, ...rest } = row;
    return { ...rest, entry };
  });
}

export function hasLiveReplies(db: Db, pid: number): boolean {
  return (
    db.one('SELECT 1 FROM entries WHERE reply_to = ? AND (deleted = 0 OR latest_pid <> 0) LIMIT 1', pid) !== undefined
  );
}
