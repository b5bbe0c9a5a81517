import type { Db } from '../db/db.ts';
import { keepNewest } from './notifications.ts';

/**
 * `thread_reply` notifications (docs/API.md "Following threads"): a new reply anywhere below an
 * entry someone follows tells them, once per followed thread until they have read it, so a busy
 * thread cannot flood an inbox (or a phone). Why after the create, in batches: a thread with ten
 * thousand followers wrote as many rows in the reply's transaction, holding the write lock from
 * every other write (bench/follow-fanout.ts). So the create writes one row in thread_reply_fanout
 * (queueThreadReplies), and lib/notifications/fan-out-job.ts tells the followers after the commit,
 * followerBatch accounts per transaction in uid order, moving the row's after_uid in the same
 * transaction, so a crash loses no follower and tells none twice. The followers are found from the
 * reply's ancestor chain through follows_by_entry, never a scan.
 */

const ancestors = `WITH RECURSIVE up(pid) AS (
  SELECT ?
  UNION ALL
  SELECT e.reply_to FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0
)`;

export function queueThreadReplies(db: Db, reply: { pid: number; uid: number }, parentPid: number, now: number): void {
  db.run(
    `${ancestors}
     INSERT INTO thread_reply_fanout (pid, author_uid, created_at)
     SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM up JOIN follows f ON f.pid = up.pid WHERE f.uid <> ?)`,
    parentPid,
    reply.pid,
    reply.uid,
    now,
    reply.uid,
  );
}

interface Fanout {
  id: number;
  pid: number;
  author_uid: number;
  created_at: number;
  after_uid: number;
}

export interface FanoutBatch {
  pid: number;
  told: number;
  done: boolean;
}

/**
 * One batch of the oldest queued reply, in one transaction: the next `size` followers of its
 * ancestors are told, and the queue row moves past them or goes; undefined when nothing is queued.
 * The follows, mutes, unread notifications and the reply's author are read as they stand now.
 */
export function tellFollowersBatch(db: Db, size: number): FanoutBatch | undefined {
  return db.tx(() => {
    const job = db.one<Fanout>(
      'SELECT id, pid, author_uid, created_at, after_uid FROM thread_reply_fanout ORDER BY id LIMIT 1',
    );
    if (!job) return undefined;
    const parentPid = db.one<{ reply_to: number }>(
      `SELECT e.reply_to FROM entries e JOIN users u ON u.uid = e.uid WHERE e.pid = ? AND e.uid = ?`,
      job.pid,
      job.author_uid,
    )?.reply_to;
    const batch = parentPid ? nextFollowers(db, parentPid, job.after_uid, size) : [];
    const last = batch.at(-1);
    const told = last === undefined ? 0 : notifyFollowers(db, job, parentPid!, last);
    const done = batch.length < size;
    if (done) db.run('DELETE FROM thread_reply_fanout WHERE id = ?', job.id);
    else db.run('UPDATE thread_reply_fanout SET after_uid = ? WHERE id = ?', last, job.id);
    return { pid: job.pid, told, done };
  });
}

/**
 * The `size` smallest uids above `after` that follow the parent or one of its ancestors, in order.
 * Why one probe per ancestor: each reads at most `size` entries of follows_by_entry, while one
 * statement over the chain sorted every remaining follower at every batch.
 */
function nextFollowers(db: Db, parentPid: number, after: number, size: number): number[] {
  const uids = new Set<number>();
  for (const { pid } of db.all<{ pid: number }>(`${ancestors} SELECT pid FROM up`, parentPid))
    for (const { uid } of db.all<{ uid: number }>(
      'SELECT uid FROM follows WHERE pid = ? AND uid > ? ORDER BY uid LIMIT ?',
      pid,
      after,
      size,
    ))
      uids.add(uid);
  return [...uids].sort((a, b) => a - b).slice(0, size);
}

/**
 * Tells the followers with uid in (after_uid, last] of the reply's ancestors, except its author,
 * those who muted the author or were told of this entry already, and those with an unread visible
 * thread_reply above the reply. The notification names the outermost followed entry. Returns how
 * many.
 */
function notifyFollowers(db: Db, job: Fanout, parentPid: number, last: number): number {
  const told = db.all<{ uid: number }>(
    `${ancestors}
     INSERT INTO notifications (uid, pid, actor_uid, kind, created_at, thread)
     SELECT f.uid, ?, ?, 'thread_reply', ?, min(f.pid)
     FROM up JOIN follows f ON f.pid = up.pid
     WHERE f.uid > ? AND f.uid <= ? AND f.uid <> ?
       AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = f.uid AND m.muted_uid = ?)
     GROUP BY f.uid
     HAVING max(${pendingFor('f.uid', 'f.pid')}) = 0
     ON CONFLICT (uid, pid) DO NOTHING
     RETURNING uid`,
    parentPid,
    job.pid,
    job.author_uid,
    job.created_at,
    job.after_uid,
    last,
    job.author_uid,
    job.author_uid,
  );
  for (const { uid } of told) keepNewest(db, uid);
  return told.length;
}

export function countQueuedFanouts(db: Db): number {
  return db.value('SELECT count(*) FROM thread_reply_fanout');
}

/**
 * 1 when the account still has an unread thread_reply for this followed entry that it can see, else
 * 0. Why visible only: one of a reply deleted since, or of an author muted since, no longer shows,
 * so it must not keep the thread silent.
 */
function pendingFor(uid: string, thread: string): string {
  return `EXISTS (
    SELECT 1 FROM notifications n JOIN entries e ON e.pid = n.pid AND e.deleted = 0
    WHERE n.uid = ${uid} AND n.thread = ${thread} AND n.thread <> 0 AND n.read = 0
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = n.uid AND m.muted_uid = n.actor_uid))`;
}
