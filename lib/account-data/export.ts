import type { Db } from '../db/db.ts';
import type { PushDeviceInfo } from '../push/devices.ts';
import type { Session } from '../accounts/sessions.ts';

/**
 * The data of an account's export (docs/API.md "GET /api/user/export"), read a page of rows at a
 * time: what account.json and the readable overview show (lib/account-data/export-archive.ts).
 */

const pageSize = 500;

export interface ExportSource {
  db: Db;
  mediaDir: string;
  uid: number;
  user: ExportedProfile;
  sessions: ExportedSession[];
  following: ExportedFollow[];
  passkeys?: ExportedPasskey[];
  origin: string;
  now: number;
  /**
   * Called before each page of rows and each file; a throw ends the export there (the zip is cut).
   * Why: a slow client can keep reading for long, and a session ended meanwhile (a thief's, by
   * its owner) or an account banned must not keep pulling data (the request's ctx.recheckSession).
   */
  recheck(): void;
}

export interface ExportedProfile {
  username: string;
  created_at: number;
  avatar: string;
  last_login?: number;
  role?: string;
  trust_level?: number;
}

export type ExportedSession = Omit<Session, 'uid'> & {
  device: string;
  current: number;
  push?: Pick<PushDeviceInfo, 'service' | 'created_at'>;
};

export interface ExportedPasskey {
  name: string;
  created_at: number;
  last_used: number;
}

export interface ExportedFollow {
  pid: number;
  created_at: number;
}

export type Pages<T> = () => Iterable<T[]>;

/**
 * account.json's members in their order. The readable overview draws one section for each member
 * of this same object (lib/account-data/export-readable.ts), so a kind of data cannot be in the one
 * and missing from the other.
 */
export interface AccountData {
  user: ExportedProfile;
  entries: Pages<EntryJson>;
  votes: Pages<VoteJson>;
  reports: Pages<ReportJson>;
  sessions: Pages<ExportedSession>;
  passkeys: Pages<ExportedPasskey>;
  following: Pages<ExportedFollow>;
}

export function accountData(source: ExportSource): AccountData {
  const held =
    <T>(rows: T[]): Pages<T> =>
    () =>
      rows.length ? [rows] : [];
  return {
    user: source.user,
    entries: paged(source, readEntries, (row) => row.pid, entryJson),
    votes: paged(source, readVotes, (row) => row.pid, voteJson),
    reports: paged(source, readReports, (row) => row.id, reportJson),
    sessions: held(source.sessions),
    passkeys: held(source.passkeys ?? []),
    following: held(source.following),
  };
}

function paged<Row, Json>(
  { db, uid, recheck }: ExportSource,
  readPage: (db: Db, uid: number, after: number) => Row[],
  keyOf: (row: Row) => number,
  toJson: (row: Row) => Json,
): Pages<Json> {
  return function* () {
    let after = 0;
    for (;;) {
      recheck();
      const rows = readPage(db, uid, after);
      if (rows.length === 0) return;
      yield rows.map(toJson);
      if (rows.length < pageSize) return;
      after = keyOf(rows.at(-1)!);
    }
  };
}

export interface ExportedEntry {
  pid: number;
  created_at: number;
  content: string;
  filepath: string;
  reply_to: number;
  reply_count: number;
  last_activity: number;
  deleted: number;
  bump_count: number;
  last_bump: number;
  removed: number;
  removed_reason: string;
  removed_at: number;
  alt: string;
}

/**
 * Every entry of the account, deleted ones included. An entry its author deleted has no text or
 * image left to give; one the moderation removed still has them, and the author gets them
 * back: they wrote it.
 */
function readEntries(db: Db, uid: number, after: number): ExportedEntry[] {
  return db.all<ExportedEntry>(
    `SELECT pid, created_at, content, filepath, reply_to, reply_count, last_activity, deleted, bump_count, last_bump,
            removed, removed_reason, removed_at, alt
     FROM entries WHERE uid = ? AND pid > ? ORDER BY pid LIMIT ?`,
    uid,
    after,
    pageSize,
  );
}

export type EntryJson = Omit<ExportedEntry, 'alt' | 'removed' | 'removed_reason' | 'removed_at'> &
  Partial<Pick<ExportedEntry, 'alt' | 'removed' | 'removed_reason' | 'removed_at'>>;

function entryJson({ removed, removed_reason, removed_at, alt, ...entry }: ExportedEntry): EntryJson {
  const described = alt ? { ...entry, alt } : entry;
  return removed ? { ...described, removed, removed_reason, removed_at } : described;
}

interface ExportedVote {
  pid: number;
  yes: number;
  created_at: number;
}

function readVotes(db: Db, uid: number, after: number): ExportedVote[] {
  return db.all<ExportedVote>(
    'SELECT pid, yes, created_at FROM votes WHERE uid = ? AND pid > ? ORDER BY pid LIMIT ?',
    uid,
    after,
    pageSize,
  );
}

export interface VoteJson {
  pid: number;
  mode: 'yes' | 'no';
  created_at: number;
}

const voteJson = ({ pid, yes, created_at }: ExportedVote): VoteJson => ({ pid, mode: yes ? 'yes' : 'no', created_at });

export interface ExportedReport {
  id: number;
  pid: number;
  reason: string;
  created_at: number;
  closed_at: number;
  closed_action: string;
}

function readReports(db: Db, uid: number, after: number): ExportedReport[] {
  return db.all<ExportedReport>(
    `SELECT id, pid, reason, created_at, closed_at, closed_action FROM reports
     WHERE reporter_uid = ? AND id > ? ORDER BY id LIMIT ?`,
    uid,
    after,
    pageSize,
  );
}

export type ReportJson = Omit<ExportedReport, 'closed_action'> & Partial<Pick<ExportedReport, 'closed_action'>>;

function reportJson({ closed_action, ...report }: ExportedReport): ReportJson {
  return report.closed_at ? { ...report, closed_action } : report;
}
