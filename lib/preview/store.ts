import type { Db } from '../db/db.ts';
import { youtubeVideoId } from '../text/links.ts';

export interface PreviewRecord {
  url: string;
  kind: PreviewKind;
  title: string;
  site: string;
  thumb: string;
  fetched_at: number;
  failed_at: number;
}

export type PreviewKind = 'page' | 'youtube';

/** docs/API.md "Link previews": a preview is refreshed after 30 days; a failed link is retried a day later at the soonest. */
export const refreshAfterSeconds = 30 * 86_400;
export const retryAfterSeconds = 86_400;
/**
 * A claimed job is someone's for jobLeaseSeconds; after a crash it becomes due again, and one
 * claimed maxJobAttempts times without finishing (the process died on it) is given up.
 */
export const jobLeaseSeconds = 300;
export const maxJobAttempts = 3;

export function previewKind(url: string): PreviewKind {
  try {
    return youtubeVideoId(new URL(url)) ? 'youtube' : 'page';
  } catch {
    return 'page';
  }
}

export function findPreview(db: Db, url: string): PreviewRecord | undefined {
  return db.one<PreviewRecord>(
    'SELECT url, kind, title, site, thumb, fetched_at, failed_at FROM previews WHERE url = ?',
    url,
  );
}

export function previewDue(record: Pick<PreviewRecord, 'fetched_at' | 'failed_at'> | undefined, now: number): boolean {
  if (!record) return true;
  if (record.failed_at > record.fetched_at) return now - record.failed_at >= retryAfterSeconds;
  return now - record.fetched_at >= refreshAfterSeconds;
}

export function queuePreviewJob(db: Db, url: string, now: number): void {
  db.run('INSERT OR IGNORE INTO preview_jobs (url, queued_at) VALUES (?, ?)', url, now);
}

export function queuePreviewIfDue(db: Db, url: string, now: number): boolean {
  if (!previewDue(findPreview(db, url), now)) return false;
  queuePreviewJob(db, url, now);
  return true;
}

export interface ClaimedJob {
  url: string;
  attempts: number;
}

/**
 * Takes the oldest due job and leases it, in one statement, so two workers (the server and
 * board-admin, say) never fetch the same link at once.
 */
export function claimPreviewJob(db: Db, now: number): ClaimedJob | undefined {
  return db.one<ClaimedJob>(
    `UPDATE preview_jobs SET not_before = ?, attempts = attempts + 1
     WHERE url = (SELECT url FROM preview_jobs WHERE not_before <= ? ORDER BY not_before, queued_at LIMIT 1)
     RETURNING url, attempts`,
    now + jobLeaseSeconds,
    now,
  );
}

export function releasePreviewJob(db: Db, url: string): void {
  db.run('UPDATE preview_jobs SET not_before = 0, attempts = max(attempts - 1, 0) WHERE url = ?', url);
}

/**
 * Puts a claimed job back with a delay, its attempts kept: a local timeout (our resolver's time
 * limit) says nothing sure about the link, so it is not recorded as the link's failure; after
 * maxJobAttempts unfinished attempts the job is given up like any other.
 */
export function deferPreviewJob(db: Db, url: string, notBefore: number): void {
  db.run('UPDATE preview_jobs SET not_before = ? WHERE url = ?', notBefore, url);
}

export function countDueJobs(db: Db, now: number): number {
  return db.value('SELECT count(*) FROM preview_jobs WHERE not_before <= ?', now);
}

export function savePreview(db: Db, record: Omit<PreviewRecord, 'fetched_at' | 'failed_at'>, now: number): string {
  return db.tx(() => {
    const old = findPreview(db, record.url);
    db.run(
      `INSERT INTO previews (url, kind, title, site, thumb, fetched_at, failed_at) VALUES (?, ?, ?, ?, ?, ?, 0)
       ON CONFLICT (url) DO UPDATE SET kind = excluded.kind, title = excluded.title, site = excluded.site,
         thumb = excluded.thumb, fetched_at = excluded.fetched_at, failed_at = 0`,
      record.url,
      record.kind,
      record.title,
      record.site,
      record.thumb,
      now,
    );
    db.run('DELETE FROM preview_jobs WHERE url = ?', record.url);
    db.changes.everythingChanged();
    return old && old.thumb !== record.thumb ? old.thumb : '';
  });
}

export function savePreviewFailure(db: Db, url: string, now: number): void {
  db.tx(() => {
    db.run(
      `INSERT INTO previews (url, kind, failed_at) VALUES (?, ?, ?)
       ON CONFLICT (url) DO UPDATE SET failed_at = excluded.failed_at`,
      url,
      previewKind(url),
      now,
    );
    db.run('DELETE FROM preview_jobs WHERE url = ?', url);
  });
}

export function queueStalePreviews(db: Db, now: number): number {
  return db.run(
    `INSERT OR IGNORE INTO preview_jobs (url, queued_at)
     SELECT p.url, ? FROM previews p
     WHERE max(p.fetched_at, p.failed_at) <= ? AND EXISTS (SELECT 1 FROM entries e WHERE e.link = p.url AND e.link <> '')`,
    now,
    now - refreshAfterSeconds,
  ).changes;
}

export function removeUnusedPreviews(db: Db, now: number): string[] {
  return db.tx(() => {
    const unused = db.all<{ url: string; thumb: string }>(
      `SELECT url, thumb FROM previews p
       WHERE max(p.fetched_at, p.failed_at) <= ? AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.link = p.url AND e.link <> '')`,
      now - refreshAfterSeconds,
    );
    for (const { url } of unused) db.run('DELETE FROM previews WHERE url = ?', url);
    return unused.map((r) => r.thumb).filter(Boolean);
  });
}

export function queueEntryLinks(db: Db, now: number, all: boolean): number {
  return db.run(
    `INSERT OR IGNORE INTO preview_jobs (url, queued_at)
     SELECT DISTINCT e.link, ? FROM entries e LEFT JOIN previews p ON p.url = e.link
     WHERE e.link <> '' AND e.deleted = 0 AND (? OR p.url IS NULL OR max(p.fetched_at, p.failed_at) <= ?)`,
    now,
    all ? 1 : 0,
    now - refreshAfterSeconds,
  ).changes;
}

export interface PreviewJson {
  url: string;
  kind: string;
  title: string;
  site: string;
  thumb: string;
}

export function usablePreviews(db: Db, urls: string[]): Map<string, PreviewJson> {
  if (urls.length === 0) return new Map();
  const rows = db.all<PreviewJson>(
    `SELECT url, kind, title, site, thumb FROM previews
     WHERE url IN (SELECT value FROM json_each(?)) AND title <> ''`,
    JSON.stringify([...new Set(urls)]),
  );
  return new Map(rows.map((row) => [row.url, row]));
}
