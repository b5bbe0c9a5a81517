import type { Db } from '../db/db.ts';
import { findLiveEntry } from '../entries/entries.ts';
import { readEntriesByPid, type EntryJson } from '../entries/reads.ts';
import { announceReports, type Notifier } from '../outgoing/operator-webhook.ts';
import { queuePageSize, maxReportsPerEntry } from '../product.ts';
import { stripBidiControls } from '../text/bidi.ts';

/** A report's reason as it is stored: bidi controls dropped, then trimmed. */
export function reportReason(raw: string): string {
  return stripBidiControls(raw).trim();
}

/**
 * The one way a report comes in, from a member, a visitor or another server: files it on a live
 * entry and tells the operator's webhook. False when the entry is not live (any more).
 */
export function reportEntry(
  app: { db: Db; notifier?: Pick<Notifier, 'send'> },
  pid: number,
  reporter: { uid: number; instance?: string },
  reason: string,
  now: number,
): boolean {
  const open = app.db.tx(() =>
    findLiveEntry(app.db, pid) ? (fileReport(app.db, pid, reporter.uid, reason, now, reporter.instance) ?? 0) : -1,
  );
  if (open > 0) announceReports(app, pid, open, reporter.instance);
  return open >= 0;
}

/**
 * Files a report. A logged-in reporter holds at most one open report per entry (the partial
 * UNIQUE index decides); anonymous ones (uid 0, also other servers' with `instance`) are all kept.
 * Returns the entry's open reports after a stored report, undefined for a repeat.
 */
export function fileReport(
  db: Db,
  pid: number,
  reporterUid: number,
  reason: string,
  now: number,
  instance = '',
): number | undefined {
  return db.tx(() => {
    const stored = db.run(
      `INSERT INTO reports (pid, reporter_uid, reason, created_at, instance) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (pid, reporter_uid) WHERE closed_at = 0 AND reporter_uid <> 0 DO NOTHING`,
      pid,
      reporterUid,
      reason,
      now,
      instance,
    ).changes;
    return stored ? countOpenReports(db, pid) : undefined;
  });
}

export function countOpenReports(db: Db, pid: number): number {
  return db.value('SELECT count(*) FROM reports WHERE closed_at = 0 AND pid = ?', pid);
}

export type CloseAction = 'remove' | 'dismiss';

export function closeOpenReports(db: Db, pid: number, action: CloseAction, logId: number, now: number): number {
  return db.run(
    'UPDATE reports SET closed_at = ?, closed_action = ?, closed_log_id = ? WHERE closed_at = 0 AND pid = ?',
    now,
    action,
    logId,
    pid,
  ).changes;
}

export interface OpenReport {
  id: number;
  pid: number;
  reporter_uid: number;
  reporter: string;
  reason: string;
  created_at: number;
  instance: string;
  excerpt: string;
  reports_on_entry: number;
}

export function listOpenReports(db: Db): OpenReport[] {
  return db.all<OpenReport>(
    `SELECT r.id, r.pid, r.reporter_uid, coalesce(u.username, '') AS reporter, r.reason, r.created_at, r.instance,
            substr(coalesce(e.content, ''), 1, 80) AS excerpt,
            (SELECT count(*) FROM reports o WHERE o.pid = r.pid AND o.closed_at = 0) AS reports_on_entry
     FROM reports r LEFT JOIN entries e ON e.pid = r.pid LEFT JOIN users u ON u.uid = r.reporter_uid
     WHERE r.closed_at = 0 ORDER BY r.pid, r.id`,
  );
}

export function findOpenReport(db: Db, id: number): { id: number; pid: number } | undefined {
  return db.one<{ id: number; pid: number }>('SELECT id, pid FROM reports WHERE id = ? AND closed_at = 0', id);
}

export function closeReport(db: Db, id: number, logId: number, now: number): boolean {
  return (
    db.run(
      "UPDATE reports SET closed_at = ?, closed_action = 'dismiss', closed_log_id = ? WHERE id = ? AND closed_at = 0",
      now,
      logId,
      id,
    ).changes === 1
  );
}

export function anonymiseReportsOf(db: Db, uid: number, limit: number): number {
  return db.run(
    'UPDATE reports SET reporter_uid = 0 WHERE id IN (SELECT id FROM reports WHERE reporter_uid = ? AND reporter_uid <> 0 LIMIT ?)',
    uid,
    limit,
  ).changes;
}

export interface QueueItem {
  entry: EntryJson;
  open_reports: number;
  /** Reporters stay with the administrator: the API always shows "". `instance`: the server a report came from (a Flag), '' for one made here. */
  reports: { id: number; created_at: number; reason: string; reporter: ''; instance: string }[];
}

export function readReportQueue(db: Db, page: number): QueueItem[] {
  const groups = db.all<{ pid: number; n: number }>(
    `SELECT pid, count(*) AS n, min(id) AS first FROM reports WHERE closed_at = 0
     GROUP BY pid ORDER BY n DESC, first ASC LIMIT ? OFFSET ?`,
    queuePageSize,
    page * queuePageSize,
  );
  const pids = groups.map((g) => g.pid);
  const entries = readEntriesByPid(db, pids);
  const reports = db.all<{ id: number; pid: number; created_at: number; reason: string; instance: string }>(
    `SELECT id, pid, created_at, reason, instance FROM (
       SELECT id, pid, created_at, reason, instance, row_number() OVER (PARTITION BY pid ORDER BY id) AS nth
       FROM reports WHERE closed_at = 0 AND pid IN (SELECT value FROM json_each(?))
     ) WHERE nth <= ? ORDER BY id`,
    JSON.stringify(pids),
    maxReportsPerEntry,
  );
  const byPid = new Map<number, QueueItem['reports']>(pids.map((pid) => [pid, []]));
  for (const r of reports)
    byPid
      .get(r.pid)!
      .push({ id: r.id, created_at: r.created_at, reason: r.reason, reporter: '', instance: r.instance });
  return groups.flatMap((g): QueueItem[] => {
    const entry = entries.get(g.pid);
    // An account deletion takes the reports with a removed row, so this is only a safety net.
    return entry ? [{ entry, open_reports: g.n, reports: byPid.get(g.pid)! }] : [];
  });
}

export function countAllOpenReports(db: Db): number {
  return db.value('SELECT count(*) FROM reports WHERE closed_at = 0');
}

export function countEntriesWithOpenReports(db: Db): number {
  return db.value('SELECT count(DISTINCT pid) FROM reports WHERE closed_at = 0');
}
