import type { Db } from './db.ts';

/** docs/API.md "POST /api/entry/{pid}/report": a report reason is at most 500 characters. */
export const maxReasonLength = 500;

/**
 * Files a report. A logged-in reporter holds at most one open report per entry (the partial
 * UNIQUE index decides); anonymous reports (uid 0) are all kept.
 */
export function fileReport(db: Db, pid: number, reporterUid: number, reason: string, now: number): void {
  db.run(
    `INSERT INTO reports (pid, reporter_uid, reason, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (pid, reporter_uid) WHERE closed_at = 0 AND reporter_uid <> 0 DO NOTHING`,
    pid, reporterUid, reason, now,
  );
}

export interface OpenReport {
  id: number;
  pid: number;
  reporter_uid: number;
  reason: string;
  created_at: number;
  excerpt: string;
  reports_on_entry: number;
}

/** Open reports grouped by entry (then in filing order), with an excerpt and how many open reports the entry has. */
export function listOpenReports(db: Db): OpenReport[] {
  return db.all<OpenReport>(
    `SELECT r.id, r.pid, r.reporter_uid, r.reason, r.created_at,
            substr(coalesce(e.content, ''), 1, 80) AS excerpt,
            (SELECT count(*) FROM reports o WHERE o.pid = r.pid AND o.closed_at = 0) AS reports_on_entry
     FROM reports r LEFT JOIN entries e ON e.pid = r.pid
     WHERE r.closed_at = 0 ORDER BY r.pid, r.id`,
  );
}

/** Closes an open report; false when there is no open report with that id. */
export function closeReport(db: Db, id: number, now: number): boolean {
  return db.run('UPDATE reports SET closed_at = ? WHERE id = ? AND closed_at = 0', now, id).changes === 1;
}

/** Account deletion, in slices: up to `limit` reports stay with an anonymous reporter. Returns how many changed. */
export function anonymiseReportsOf(db: Db, uid: number, limit: number): number {
  return db.run('UPDATE reports SET reporter_uid = 0 WHERE id IN (SELECT id FROM reports WHERE reporter_uid = ? AND reporter_uid <> 0 LIMIT ?)', uid, limit).changes;
}
