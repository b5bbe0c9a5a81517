import type Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes of the WAL-index header's first copy at the start of the -shm file (SQLite file format, "The WAL-Index Format"). */
const headerBytes = 48;

/**
 * SQLite's PRAGMA data_version (it moves when another connection commits), asked only when it can
 * have moved, because a statement before every cached page costs more than the page's own work.
 * So first the 48-byte WAL-index header in board.db-shm is read (one pread): every commit of any
 * connection, in any process, rewrites it (its change counter and frame count) before the commit
 * returns, and a reader that sees the same bytes as last time knows no commit happened since. Any
 * difference (a commit, our own, a WAL restart, a torn read) asks the pragma. Without a -shm file
 * (":memory:", a journal mode other than WAL) the pragma is asked every time. The response cache
 * asks through oncePerTurn below, because even the pread is a system call per request
 * (docs/SCALING.md "Reads and writes per core").
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
 * `read` asked at most once per event-loop turn: the first call of a turn asks, later calls in the
 * same turn get that answer, and the memo is dropped in the turn's check phase (setImmediate).
 * Why this sees every commit a client could know of: a request handled in a turn was read from
 * its socket in that turn's poll phase, so its bytes arrived before the poll returned, which was
 * before the first check of the turn; a commit acknowledged to anyone before the request was sent
 * happened earlier still, so that first check saw it. A request that waits (a body, a slot) and
 * reads the cache in a later turn gets that later turn's check. The one exception: libuv polls a
 * second time in the same turn, without waiting, only when the first poll returned its maximum of
 * 1,024 ready events; a request in that second batch may have arrived after the check, and could
 * miss a commit of the last few milliseconds (that turn's length). It needs more than 1,024
 * connections ready at once on one worker; the next turn sees the commit.
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
