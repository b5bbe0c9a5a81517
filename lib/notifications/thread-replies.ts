import type { Db } from '../db/db.ts';
import { keepNewest } from './notifications.ts';

/**
 * `thread_reply` notifications (docs/API.md "Following threads"): a new reply anywhere below an
 * entry someone follows tells them, once per followed thread until they have read it. Why once:
 * a busy thread must not flood an inbox (or a phone, lib/push/); the one unread notification
 * says "there is something new here", and the thread shows the rest.
 *
 * Why after the create, in batches: a thread with ten thousand followers wrote ten thousand rows
 * in the reply's transaction (a third of a second holding SQLite's one write lock, every other
 * write waiting; bench/follow-fanout.ts). The create now writes one row in thread_reply_fanout
 * (queueThreadReplies), and the job in lib/notifications/fan-out-job.ts tells the followers after
 * the commit, followerBatch accounts per transaction, in the order of their uids. Each batch
 * moves the row's after_uid in the transaction that writes its notifications, so a crash loses
 * no follower and tells none twice (UNIQUE (uid, pid) would refuse a second row anyway).
 *
 * Cost at a million entries: the followers are found from the reply's ancestor chain (at most
 * maxReplyDepth + 1 rows, walked by primary key) through follows_by_entry, never a scan; each
 * follower costs one probe of notifications_thread_unread, and a row only while it has none unread.
 */

/** The reply's ancestors, its parent (the first parameter) up to the root. */
const ancestors = `WITH RECURSIVE up(pid) AS (
  SELECT ?
  UNION ALL
  SELECT e.reply_to FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0
)`;

/**
 * In the create's transaction: queues the telling of the reply's followers when any account but
 * its author follows one of its ancestors (a reply nobody else follows writes nothing more).
 */
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

/** What one batch did: the reply it was for, the accounts it told, and whether that reply is done. */
export interface FanoutBatch {
  pid: number;
  told: number;
  done: boolean;
}

/**
 * One batch of the oldest queued reply, in one transaction: the next `size` followers (by uid,
 * after the last batch's) of the reply's ancestors are told, and the queue row moves past them or
 * goes. Undefined when nothing is queued. What the create's transaction checked is checked again
 * here, now: the follows, mutes and unread notifications as they stand, and the reply's author
 * still an account (a deleted account's entries tell nobody: its notifications went with it).
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
 * The `size` smallest uids above `after` that follow the parent or one of its ancestors, in
 * order. Why one probe per ancestor and not one statement: each probe reads at most `size` entries
 * of follows_by_entry in uid order, while one statement over the whole chain read and sorted every
 * remaining follower at every batch (10,000 at the first of a big thread).
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
 * Tells the followers with uid in (after_uid, last] of the reply's ancestors (its parent up to
 * the root) except its author, accounts that muted the author, and those already told of this
 * entry (a reply or a mention wins: UNIQUE (uid, pid)), unless they still have an unread,
 * visible thread_reply for one of the followed entries the reply lies below. The notification
 * names the outermost of them. Returns how many were told.
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

/** Replies whose followers are still to be told (the job's queue; lib/metrics and tests). */
export function countQueuedFanouts(db: Db): number {
  return db.value('SELECT count(*) FROM thread_reply_fanout');
}

/**
 * 1 when the account still has an unread thread_reply for this followed entry that it can see
 * (its entry live, its author not muted), else 0. Why visible only: an unread notification of a
 * reply deleted since, or of an account muted since, no longer shows or counts as unread, so it
 * must not keep the thread silent.
 */
function pendingFor(uid: string, thread: string): string {
  return `EXISTS (
    SELECT 1 FROM notifications n JOIN entries e ON e.pid = n.pid AND e.deleted = 0
    WHERE n.uid = ${uid} AND n.thread = ${thread} AND n.thread <> 0 AND n.read = 0
      AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = n.uid AND m.muted_uid = n.actor_uid))`;
}
