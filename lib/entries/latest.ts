import type { Db } from '../db/db.ts';
import { latestMaxDepth } from '../product.ts';

interface Candidate {
  pid: number;
  created_at: number;
  skipped: number;
}

const newer = (a: Candidate, b: Candidate | undefined) =>
  !b || a.created_at > b.created_at || (a.created_at === b.created_at && a.pid > b.pid);

/**
 * A new entry is the newest in every subtree it joins: it becomes `latest` of its ≤ 50 nearest
 * ancestors (skipped = distance − 1), and every ancestor's last_activity moves to now.
 * One statement over the ancestor chain, inside the caller's transaction.
 */
export function recordNewDescendant(db: Db, parentPid: number, pid: number, now: number): void {
  db.run(
    `WITH RECURSIVE up(pid, dist) AS (
       SELECT ?, 1
       UNION ALL
       SELECT e.reply_to, up.dist + 1 FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0
     )
     UPDATE entries SET
       last_activity = ?,
       latest_pid = iif(up.dist <= ${latestMaxDepth}, ?, entries.latest_pid),
       latest_skipped = iif(up.dist <= ${latestMaxDepth}, up.dist - 1, entries.latest_skipped)
     FROM up WHERE entries.pid = up.pid`,
    parentPid,
    now,
    pid,
  );
}

export function refreshActivityToRoot(db: Db, pid: number, now: number): void {
  db.run(
    `WITH RECURSIVE up(pid) AS (
       SELECT ?
       UNION ALL
       SELECT e.reply_to FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0
     )
     UPDATE entries SET last_activity = ? FROM up WHERE entries.pid = up.pid`,
    pid,
    now,
  );
}

/**
 * After `gone` stopped being a live entry (deleted or removed), recomputes `latest` of the
 * ancestors that pointed at it, nearest first, so each one can build on its children's pointers.
 */
export function repairLatestAfterRemoval(db: Db, gone: number, parentPid: number): void {
  let pid = parentPid;
  for (let dist = 1; pid !== 0 && dist <= latestMaxDepth; dist++) {
    const row = db.one<{ reply_to: number; latest_pid: number }>(
      'SELECT reply_to, latest_pid FROM entries WHERE pid = ?',
      pid,
    );
    if (!row) return;
    if (row.latest_pid === gone) {
      const best = newestBelow(db, pid, latestMaxDepth);
      db.run(
        'UPDATE entries SET latest_pid = ?, latest_skipped = ? WHERE pid = ?',
        best?.pid ?? 0,
        best?.skipped ?? 0,
        pid,
      );
    }
    pid = row.reply_to;
  }
}

/**
 * After a moderator's restore the entry becomes `latest` of each of its nearest ancestors whose
 * pointer is older or absent: that pointer already is the newest of everything else in range, so
 * one comparison per ancestor is exact. last_activity does not move.
 */
export function recordRestoredDescendant(db: Db, parentPid: number, entry: { pid: number; created_at: number }): void {
  if (parentPid === 0) return;
  db.run(
    `WITH RECURSIVE up(pid, dist) AS (
       SELECT ?, 1
       UNION ALL
       SELECT e.reply_to, up.dist + 1 FROM entries e JOIN up ON e.pid = up.pid
       WHERE e.reply_to <> 0 AND up.dist < ${latestMaxDepth}
     )
     UPDATE entries SET latest_pid = ?, latest_skipped = up.dist - 1
     FROM up
     WHERE entries.pid = up.pid
       AND (entries.latest_pid = 0
            OR (SELECT l.created_at, l.pid FROM entries l WHERE l.pid = entries.latest_pid) < (?, ?))`,
    parentPid,
    entry.pid,
    entry.created_at,
    entry.pid,
  );
}

/**
 * The newest live entry 1..maxDist levels below `pid`, from the children and their own
 * `latest` pointers (correct already: repairs go nearest first). A child's pointer that
 * reaches exactly maxDist below the child lies out of range, so that child is searched level by level.
 */
function newestBelow(db: Db, pid: number, maxDist: number): Candidate | undefined {
  const children = db.all<{
    pid: number;
    created_at: number;
    deleted: number;
    latest_pid: number;
    latest_skipped: number;
    latest_created: number | null;
  }>(
    `SELECT c.pid, c.created_at, c.deleted, c.latest_pid, c.latest_skipped, l.created_at AS latest_created
     FROM entries c LEFT JOIN entries l ON l.pid = c.latest_pid AND l.deleted = 0
     WHERE c.reply_to = ?`,
    pid,
  );
  let best: Candidate | undefined;
  for (const child of children) {
    if (!child.deleted) {
      const candidate = { pid: child.pid, created_at: child.created_at, skipped: 0 };
      if (newer(candidate, best)) best = candidate;
    }
    if (maxDist < 2) continue;
    let candidate: Candidate | undefined;
    if (child.latest_pid && child.latest_created !== null && child.latest_skipped + 2 <= maxDist) {
      candidate = { pid: child.latest_pid, created_at: child.latest_created, skipped: child.latest_skipped + 1 };
    } else if (child.latest_pid) {
      const deeper = newestBelow(db, child.pid, maxDist - 1);
      candidate = deeper && { ...deeper, skipped: deeper.skipped + 1 };
    }
    if (candidate && newer(candidate, best)) best = candidate;
  }
  return best;
}
