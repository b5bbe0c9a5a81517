import { isLocalAccount } from '../accounts/users.ts';
import type { Db } from '../db/db.ts';

import {
  applicationsPageSize,
  maxApplicationLength,
  maxPendingApplications,
  minApplicationLength,
  rejectedKeptSeconds,
} from '../product.ts';
import { writeModlog, type ActorUid } from '../modlog/modlog.ts';
import { codePoints } from '../text/code-points.ts';

/**
 * Registration applications (docs/API.md "Registration"): in approval mode a new account
 * is stored with status 'pending' and its answer; it cannot log in until a moderator decides.
 * Rejected accounts stay 30 days so their owner can learn why, then they go and the name is free.
 */

export const pendingStatus = 'pending';
export const rejectedStatus = 'rejected';

export function applicationText(raw: string): string | undefined {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  const length = codePoints(text);
  return length >= minApplicationLength && length <= maxApplicationLength ? text : undefined;
}

export function countPendingApplications(db: Db): number {
  return db.one<{ n: number }>('SELECT count(*) AS n FROM users WHERE status = ?', pendingStatus)!.n;
}

export interface Application {
  username: string;
  created_at: number;
  application: string;
  same_minute: number;
  same_hour: number;
}

/** A page of the queue, oldest first. The signals are counts of accounts, never addresses. */
export function readApplications(db: Db, page: number): Application[] {
  return db.all<Application>(
    `SELECT u.username, u.created_at, u.application,
       (SELECT count(*) FROM users o WHERE o.created_at >= u.created_at - u.created_at % 60
                                      AND o.created_at < u.created_at - u.created_at % 60 + 60 AND o.${isLocalAccount}) AS same_minute,
       (SELECT count(*) FROM users o WHERE o.created_at > u.created_at - 3600 AND o.created_at <= u.created_at
                                      AND o.${isLocalAccount}) AS same_hour
     FROM users u WHERE u.status = ? ORDER BY u.created_at, u.uid LIMIT ? OFFSET ?`,
    pendingStatus,
    applicationsPageSize,
    page * applicationsPageSize,
  );
}

/**
 * Approves a pending account: it can log in from now on. False when it is no longer pending (a
 * second moderator decided first: the check is inside the writing transaction).
 */
export function approveApplication(db: Db, uid: number, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const changed = db.run(
      "UPDATE users SET status = '', application = '', decided_at = ? WHERE uid = ? AND status = ?",
      now,
      uid,
      pendingStatus,
    ).changes;
    if (changed === 0) return false;
    db.run("UPDATE counters SET value = value + 1 WHERE name = 'users'");
    writeModlog(db, actor, { action: 'approve', uid }, now);
    return true;
  });
}

/**
 * Rejects a pending account; its owner sees `reason` at login for 30 days. The public log names
 * the account but not the reason: that is for the applicant, like the application itself.
 */
export function rejectApplication(db: Db, uid: number, reason: string, actor: ActorUid, now: number): boolean {
  return db.tx(() => {
    const changed = db.run(
      "UPDATE users SET status = ?, application = '', reject_reason = ?, decided_at = ? WHERE uid = ? AND status = ?",
      rejectedStatus,
      reason,
      now,
      uid,
      pendingStatus,
    ).changes;
    if (changed === 0) return false;
    writeModlog(db, actor, { action: 'reject', uid }, now);
    return true;
  });
}

/**
 * Rejects every application stored from `from` to `to` (created_at, both included) in one
 * transaction; returns the names. Why: one by one, a wave of bots would take a moderator hours
 * while honest applicants are refused; the span comes from the queue the moderator saw, so later
 * applications still wait.
 */
export function rejectApplicationsBetween(
  db: Db,
  from: number,
  to: number,
  reason: string,
  actor: ActorUid,
  now: number,
): string[] {
  return db.tx(() => {
    const waiting = db.all<{ uid: number; username: string }>(
      'SELECT uid, username FROM users WHERE status = ? AND created_at BETWEEN ? AND ? ORDER BY created_at, uid LIMIT ?',
      pendingStatus,
      from,
      to,
      maxPendingApplications,
    );
    for (const { uid } of waiting) {
      db.run(
        "UPDATE users SET status = ?, application = '', reject_reason = ?, decided_at = ? WHERE uid = ?",
        rejectedStatus,
        reason,
        now,
        uid,
      );
      writeModlog(db, actor, { action: 'reject', uid }, now);
    }
    return waiting.map((w) => w.username);
  });
}

/**
 * Housekeeping: rejected accounts older than 30 days go, and with them the name. They never
 * logged in, so they have no entries, votes or sessions; invites they used stay as "used".
 */
export function deleteExpiredRejections(db: Db, now: number): number {
  return db.run('DELETE FROM users WHERE status = ? AND decided_at <= ?', rejectedStatus, now - rejectedKeptSeconds)
    .changes;
}
