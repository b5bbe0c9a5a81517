import type Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes of the WAL-index header's first copy at the start of the -shm file (SQLite file format, "The WAL-Index Format"). */
const headerBytes = 48;

/**
 * SQLite's data_version, asked only when it can have moved, which saves a statement per cached
 * page: every commit, by any process, rewrites the WAL-index header in board.db-shm first, so a
 * pread seeing the same bytes as last time proves none happened. Without a -shm file the pragma is
 * always asked.
 */
export function createDataVersion(raw: Database.Database, path: string): { read(): number; close(): void } {
  const pragma = raw.prepare('PRAGMA data_version').pluck();
  let fd: number | undefined;
  if (path !== ':memory:' && raw.pragma('journal_mode', { simple: true }) === 'wal') {
    try {
      fd = openSync(`${path}-shm`, 'r');
    } catch {
      fd = undefined;
    }
  }
  const seen = Buffer.alloc(headerBytes);
  const now = Buffer.alloc(headerBytes);
  let version = -1;
  return {
    read() {
      if (fd !== undefined && version !== -1) {
        if (readSync(fd, now, 0, headerBytes, 0) === headerBytes && now.equals(seen)) return version;
      }
      if (fd !== undefined) readSync(fd, seen, 0, headerBytes, 0); // before the pragma: a commit in between is seen next time
      version = pragma.get() as number;
      return version;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/**
 * `read` asked at most once per event-loop turn. Why no commit a client knew of is missed: a
 * request handled in a turn arrived before the turn's poll returned, so after any commit
 * acknowledged before it was sent (only libuv's rare second poll in a turn, past 1,024 ready
 * events, may see one late).
 */
export function oncePerTurn(read: () => number): () => number {
  let memo: number | undefined;
  const forget = () => {
    memo = undefined;
  };
  return () => {
    if (memo === undefined) {
      memo = read();
      setImmediate(forget);
    }
    return memo;
  };
}
