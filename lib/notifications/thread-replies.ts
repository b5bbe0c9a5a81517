import type { Db } from '../db/db.ts';
import { keepNewest } from './notifications.ts';

/**
 * `thread_reply` notifications (docs/API.md "Following threads"): a new reply anywhere below an
 * entry someone follows tells them, once per followed thread until they have read it. Why once:
 * a busy thread must not flood an inbox (or a phone, lib/push/); the one unread notification
 * says "there is something new here", and the thread shows the rest.
 *
 * Cost at a million entries: the followers are found from the reply's ancestor chain (at most
 * maxReplyDepth + 1 rows, walked by primary key) through follows_by_entry, never a scan; each
 * follower costs one probe of notifications_thread_unread, and a row only while it has none unread.
 */

/**
 * Tells every follower of the reply's ancestors (its parent up to the root) except its author,
 * accounts that muted the author, and those already told of this entry (a reply or a mention
 * wins: UNIQUE (uid, pid)), unless they still have an unread, visible thread_reply for one of the
 * followed entries the reply lies below. The notification names the outermost of them. Call
 * inside the create's transaction, after notifyAbout.
 */
export function notifyFollowers(db: Db, reply: { pid: number; uid: number }, parentPid: number, now: number): void {
  const told = db.all<{ uid: number }>(
    `WITH RECURSIVE up(pid) AS (
       SELECT ?
       UNION ALL
       SELECT e.reply_to FROM entries e JOIN up ON e.pid = up.pid WHERE e.reply_to <> 0
     )
     INSERT INTO notifications (uid, pid, actor_uid, kind, created_at, thread)
     SELECT f.uid, ?, ?, 'thread_reply', ?, min(f.pid)
     FROM up JOIN follows f ON f.pid = up.pid
     WHERE f.uid <> ?
       AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.uid = f.uid AND m.muted_uid = ?)
     GROUP BY f.uid
     HAVING max(${pendingFor('f.uid', 'f.pid')}) = 0
     ON CONFLICT (uid, pid) DO NOTHING
     RETURNING uid`,
    parentPid,
    reply.pid,
    reply.uid,
    now,
    reply.uid,
    reply.uid,
  );
  for (const { uid } of told) keepNewest(db, uid);
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
