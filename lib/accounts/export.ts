import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Db } from '../db/db.ts';
import { readableEntriesCsv, readableOverview } from './export-readable.ts';

/**
 * The data export (docs/API.md "GET /api/user/export"): one zip with `account.json`, the
 * account's image files, and a readable part for people rather than programs (lib/accounts/export-readable.ts):
 * `uebersicht.html` and `beitraege.csv` with German dates. The archive is streamed: account.json is written from pages of rows as
 * the client reads, and each file is opened only when its turn comes, so memory does not grow
 * with the account (only the zip's directory of file names does, as the format needs it).
 */

/** Rows read per query while account.json is written. */
const pageSize = 500;

export interface ExportSource {
  db: Db;
  mediaDir: string;
  uid: number;
  /** The profile as GET /api/user/info answers it. */
  user: { avatar: string; username: string; created_at: number };
  /** The session list as GET /api/user/sessions answers it (each with its push device: which service, since when; never a key). */
  sessions: unknown[];
  /** The followed entries {pid, created_at}: at most maxFollows (lib/follows/follows.ts). */
  following: unknown[];
  /** The account's passkeys: name, created_at, last_used (none when absent). */
  passkeys?: unknown[];
  now: number;
  /**
   * Called before each page of rows and each file; a throw ends the export there (the zip is cut).
   * Why: a slow client can keep reading for long, and a session ended meanwhile (a thief's, by
   * its owner) or an account banned must not keep pulling data (the request's ctx.recheckSession).
   */
  recheck(): void;
}

/** The archive as a stream of zip bytes: the list of files is read now, rows and file contents as the stream is read. */
export function accountArchive(source: ExportSource): Readable {
  const zip = new ZipFile();
  const mtime = new Date(source.now * 1000);
  // Inputs still open when the output closes early (the client left) are closed with it: no file handle outlives the request.
  const inputs = new Set<Readable>();
  let closed = false;
  const track = (input: Readable) => {
    if (closed) input.destroy();
    inputs.add(input);
    input.on('error', fail);
    input.once('close', () => inputs.delete(input));
    return input;
  };
  const output = zip.outputStream as Readable;
  // yazl reports its own errors on the ZipFile and does not listen to a read stream's at all: a
  // failed input (a database fault in account.json, an unreadable file) must fail the output, or
  // the download would hang half-written.
  const fail = (err: Error) => output.destroy(err);
  zip.once('error', fail);
  output.once('close', () => {
    closed = true;
    for (const input of inputs) input.destroy();
  });

  zip.addReadStream(track(Readable.from(accountJson(source), { objectMode: false })), 'account.json', {
    mtime,
    compress: true,
  });
  for (const [name, content] of [
    ['uebersicht.html', readableOverview(source)],
    ['beitraege.csv', readableEntriesCsv(source)],
  ] as const)
    zip.addReadStream(track(Readable.from(content, { objectMode: false })), name, { mtime, compress: true });
  for (const path of mediaPaths(source)) {
    // Images are compressed already: stored as they are.
    zip.addReadStreamLazy(`media/${path}`, { mtime, compress: false }, (done) => {
      try {
        source.recheck();
      } catch (err) {
        return done(err, Readable.from([])); // yazl fails the zip and reads no stream
      }
      void openMedia(join(source.mediaDir, path)).then((input) => done(null, track(input)));
    });
  }
  zip.end();
  return output;
}

/** A file's bytes; a file removed while the archive is written (its entry deleted meanwhile) comes out empty. */
async function openMedia(path: string): Promise<Readable> {
  try {
    return (await open(path)).createReadStream();
  } catch {
    return Readable.from([]);
  }
}

/** account.json, piece by piece: {user, entries, votes, reports, sessions, passkeys, following}. */
function* accountJson({ db, uid, user, sessions, passkeys = [], following, recheck }: ExportSource): Generator<Buffer> {
  yield Buffer.from(`{"user":${JSON.stringify(user)},"entries":[`);
  yield* jsonRows(
    recheck,
    (after) => readEntries(db, uid, after),
    (row) => row.pid,
    entryJson,
  );
  yield Buffer.from('],"votes":[');
  yield* jsonRows(
    recheck,
    (after) => readVotes(db, uid, after),
    (row) => row.pid,
    voteJson,
  );
  yield Buffer.from('],"reports":[');
  yield* jsonRows(
    recheck,
    (after) => readReports(db, uid, after),
    (row) => row.id,
    reportJson,
  );
  yield Buffer.from(
    `],"sessions":${JSON.stringify(sessions)},"passkeys":${JSON.stringify(passkeys)},"following":${JSON.stringify(following)}}`,
  );
}

/** A table's rows a page at a time (keyset: the key after the last row), the session re-checked before each. */
export function* pagesOf<T>(
  recheck: () => void,
  readPage: (after: number) => T[],
  keyOf: (row: T) => number,
): Generator<T[]> {
  let after = 0;
  for (;;) {
    recheck();
    const rows = readPage(after);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    after = keyOf(rows.at(-1)!);
  }
}

/** The rows of one array, comma-separated, a page at a time. */
function* jsonRows<T>(
  recheck: () => void,
  readPage: (after: number) => T[],
  keyOf: (row: T) => number,
  toJson: (row: T) => unknown,
): Generator<Buffer> {
  let separator = '';
  for (const rows of pagesOf(recheck, readPage, keyOf)) {
    yield Buffer.from(separator + rows.map((row) => JSON.stringify(toJson(row))).join(','));
    separator = ',';
  }
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
export function readEntries(db: Db, uid: number, after: number): ExportedEntry[] {
  return db.all<ExportedEntry>(
    `SELECT pid, created_at, content, filepath, reply_to, reply_count, last_activity, deleted, bump_count, last_bump,
            removed, removed_reason, removed_at, alt
     FROM entries WHERE uid = ? AND pid > ? ORDER BY pid LIMIT ?`,
    uid,
    after,
    pageSize,
  );
}

/** The image's description and the removal's fields only when set (new fields appear only when they have something to say). */
function entryJson({ removed, removed_reason, removed_at, alt, ...entry }: ExportedEntry) {
  const described = alt ? { ...entry, alt } : entry;
  return removed ? { ...described, removed, removed_reason, removed_at } : described;
}

interface ExportedVote {
  pid: number;
  yes: number;
  created_at: number;
}

export function readVotes(db: Db, uid: number, after: number): ExportedVote[] {
  return db.all<ExportedVote>(
    'SELECT pid, yes, created_at FROM votes WHERE uid = ? AND pid > ? ORDER BY pid LIMIT ?',
    uid,
    after,
    pageSize,
  );
}

const voteJson = ({ pid, yes, created_at }: ExportedVote) => ({ pid, mode: yes ? 'yes' : 'no', created_at });

interface ExportedReport {
  id: number;
  pid: number;
  reason: string;
  created_at: number;
  closed_at: number;
  closed_action: string;
}

/** The reports the account filed (anonymous ones carry no account, so they cannot be among them). */
export function readReports(db: Db, uid: number, after: number): ExportedReport[] {
  return db.all<ExportedReport>(
    `SELECT id, pid, reason, created_at, closed_at, closed_action FROM reports
     WHERE reporter_uid = ? AND id > ? ORDER BY id LIMIT ?`,
    uid,
    after,
    pageSize,
  );
}

/** `closed_action` (remove or dismiss) only once the report is closed. */
function reportJson({ closed_action, ...report }: ExportedReport) {
  return report.closed_at ? { ...report, closed_action } : report;
}

/** The avatar and every image the account's entries still hold (removed entries' included), as paths under media/. */
function mediaPaths({ db, uid, user }: ExportSource): string[] {
  const images = db.all<{ filepath: string }>(
    "SELECT filepath FROM entries WHERE uid = ? AND filepath <> '' ORDER BY pid",
    uid,
  );
  return [user.avatar, ...images.map((row) => row.filepath)].filter((path) => path && !path.includes('..'));
}
