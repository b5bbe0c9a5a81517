import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync } from 'node:fs';
import { startCheckpointer } from './checkpointer.ts';
import { createDataVersion, oncePerTurn } from './data-version.ts';
import { migrate } from './schema.ts';
import { createWriteBatch, synchronousResult, type WriteLock } from './write-batch.ts';

type Params = unknown[];

/** The tiny SQL helper every domain function takes as its first argument. */
export interface Db {
  one<T>(sql: string, ...params: Params): T | undefined;
  all<T>(sql: string, ...params: Params): T[];
  value<T = number>(sql: string, ...params: Params): T;
  run(sql: string, ...params: Params): { changes: number; lastInsertRowid: number };
  isReadOnly(sql: string): boolean;
  tx<T>(fn: () => T): T;
  /**
   * Queues fn with the other writes of this turn into one transaction (lib/db/write-batch.ts), each
   * in its own savepoint; the promise settles after the COMMIT, so an answer sent on it is durable.
   * Only creates use it: they are the one write frequent enough for their commits to crowd the
   * lock.
   */
  txBatched<T>(fn: () => T): Promise<T>;
  /**
   * Inside a txBatched write: runs fn before the batch's COMMIT, outside the writes' savepoints
   * (dropped when the write that asked fails); anywhere else at once. Why: FTS5 flushes its pending
   * index data at every SAVEPOINT, so index rows added inside each create's savepoint made one
   * segment per create.
   */
  beforeCommit(fn: () => void): void;
  readonly batchTally: { writes: number; commits: number };
  /**
   * Test hook: while set, every statement throws the returned error (simulates a broken disk).
   * It is also asked with 'COMMIT' at the end of each tx, so a full disk can fail the commit itself.
   */
  setFault(fault: ((sql: string) => Error | undefined) | undefined): void;
  readonly raw: Database.Database;
  readonly changes: ChangeListener;
  onChange(listener: ChangeListener): void;
  /** Tells every listener what a write did that other servers may hear of; a domain calls it inside the write's transaction. */
  readonly events: EventListener;
  onEvent(listener: EventListener): void;
  /** SQLite's data_version of this connection, read once per event-loop turn: it moves when another connection commits. */
  dataVersionNow(): number;
  close(): Promise<void>;
}

/**
 * What a write changed, for whoever keeps answers made from the data. Why a hook: the database is
 * the ground the delivery layer stands on, so the response cache registers here instead of
 * every domain importing it.
 */
export interface ChangeListener {
  threadChanged(root: number): void;
  userChanged(uid: number): void;
  /** A vote moved a tally (only the drawn pages show counts). */
  votesChanged(): void;
  modlogChanged(): void;
  everythingChanged(): void;
}

/** A vote as an event tells it: its mode and when it was cast (an undo names the vote it ends). */
export interface VoteState {
  mode: 'yes' | 'no';
  at: number;
}

/**
 * What a write did, for federation (lib/federation/outbox.ts), told inside the write's transaction:
 * a rolled-back write tells nobody, a committed one is never lost. A hook because federation stands
 * above the domains that write, which must not import it.
 */
export interface EventListener {
  entryCreated(pid: number): void;
  entryEdited(pid: number): void;
  entryDeleted(pid: number, removed: boolean): void;
  /** A vote cast, changed or withdrawn: what it was before and is after (undefined: none). */
  voteChanged(pid: number, uid: number, before: VoteState | undefined, after: VoteState | undefined): void;
  entryBumped(pid: number, uid: number, at: number): void;
  accountDeleted(uid: number): void;
}

export interface OpenOptions {
  backgroundCheckpoints?: boolean;
  walLimits?: boolean;
  /**
   * BOARD_LITESTREAM=1: Litestream is the only checkpointer, so this connection never checkpoints,
   * whatever the options above say. Why: a checkpoint by anyone else that restarts the WAL can
   * overwrite frames Litestream has not copied yet, forcing a full snapshot upload.
   */
  litestream?: boolean;
  log?: (line: string) => void;
  mustExist?: boolean;
  batchWindowMs?: number;
}

/**
 * Opens (and migrates) the database: WAL, foreign keys, busy timeout, statements cached by text,
 * checkpoints on a worker thread (a cluster worker sets only the WAL valve: the job runner
 * checkpoints for all). `mustExist`: fail rather than create an empty database (board-admin never
 * creates a board).
 */
export function openDb(path: string, options: OpenOptions = {}): Db {
  // Readable by the owner only; SQLite gives the WAL and shared-memory files the same mode.
  if (path !== ':memory:' && !options.mustExist && !existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  const raw = new Database(path, { fileMustExist: options.mustExist === true });
  raw.pragma('journal_mode = WAL');
  // A commit is durable against a crashed or killed process; fsync happens at checkpoints.
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Statement journals (one per savepoint) stay in memory instead of a temporary file, where a
  // batch of creates wrote journal pages for every create; temporary tables and sorts too, since
  // every query here is bounded.
  raw.pragma('temp_store = MEMORY');
  raw.pragma('cache_size = -32768'); // 32 MiB: a reply touches pages of up to 50 ancestors and their index entries
  if (options.litestream) raw.pragma('wal_autocheckpoint = 0'); // before the migrations: they write too
  const steps = migrate(raw);
  if (steps[0]?.from)
    for (const { from, to, ms } of steps)
      options.log?.(`database: schema ${from} -> ${to} migrated in ${ms.toFixed(0)} ms`);
  if (!options.litestream && (options.backgroundCheckpoints || options.walLimits)) setWalLimits(raw);
  const checkpointer = !options.litestream && options.backgroundCheckpoints ? startCheckpointer(path) : undefined;

  const cache = new Map<string, Database.Statement>();
  const writeLock = createWriteLock(raw);
  const dataVersion = createDataVersion(raw, path);
  const dataVersionThisTurn = oncePerTurn(() => dataVersion.read());
  let fault: ((sql: string) => Error | undefined) | undefined;
  const batchTally = { writes: 0, commits: 0 };
  const listeners: ChangeListener[] = [];
  const tell = (call: (listener: ChangeListener) => void) => {
    for (const listener of listeners) call(listener);
  };
  const changes: ChangeListener = {
    threadChanged: (root) => tell((l) => l.threadChanged(root)),
    userChanged: (uid) => tell((l) => l.userChanged(uid)),
    votesChanged: () => tell((l) => l.votesChanged()),
    modlogChanged: () => tell((l) => l.modlogChanged()),
    everythingChanged: () => tell((l) => l.everythingChanged()),
  };
  const eventListeners: EventListener[] = [];
  const emit = (call: (listener: EventListener) => void) => {
    for (const listener of eventListeners) call(listener);
  };
  const events: EventListener = {
    entryCreated: (pid) => emit((l) => l.entryCreated(pid)),
    entryEdited: (pid) => emit((l) => l.entryEdited(pid)),
    entryDeleted: (pid, removed) => emit((l) => l.entryDeleted(pid, removed)),
    voteChanged: (pid, uid, before, after) => emit((l) => l.voteChanged(pid, uid, before, after)),
    entryBumped: (pid, uid, at) => emit((l) => l.entryBumped(pid, uid, at)),
    accountDeleted: (uid) => emit((l) => l.accountDeleted(uid)),
  };
  const batch = createWriteBatch(raw, writeLock, {
    commitFault: () => fault?.('COMMIT'),
    // The rolled-back writes moved their versions already; this also drops anything built meanwhile.
    rolledBack: () => changes.everythingChanged(),
    committed: (writes) => {
      batchTally.writes += writes;
      batchTally.commits++;
    },
    windowMs: options.batchWindowMs ?? 0,
  });

  function prepare(sql: string): Database.Statement {
    const failure = fault?.(sql);
    if (failure) throw failure;
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = raw.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  }

  const plucked = new Map<string, Database.Statement>();
  function value<T>(sql: string, ...params: Params): T {
    const failure = fault?.(sql);
    if (failure) throw failure;
    let stmt = plucked.get(sql);
    if (!stmt) {
      stmt = raw.prepare(sql).pluck();
      plucked.set(sql, stmt);
    }
    const result = stmt.get(...params);
    if (result === undefined) throw new Error(`db.value: no row from ${sql}`);
    return result as T;
  }

  const one = <T>(sql: string, ...params: Params) => prepare(sql).get(...params) as T | undefined;
  return {
    one,
    value,
    all: <T>(sql: string, ...params: Params) => prepare(sql).all(...params) as T[],
    run(sql, ...params) {
      const r = prepare(sql).run(...params);
      return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
    },
    isReadOnly: (sql) => prepare(sql).readonly,
    // IMMEDIATE: the write lock is taken before the first read; a deferred transaction that reads
    // and then writes fails at once with SQLITE_BUSY when another process committed in between.
    tx: (fn) => {
      const body = () => {
        const result = synchronousResult(fn());
        const failure = fault?.('COMMIT');
        if (failure) throw failure; // rolls the transaction back, as a failed commit would
        return result;
      };
      if (raw.inTransaction) return batch.savepoint(body);
      writeLock.begin();
      try {
        const result = body();
        writeLock.commit();
        return result;
      } catch (err) {
        if (raw.inTransaction) writeLock.rollback();
        throw err;
      }
    },
    txBatched: batch.txBatched,
    beforeCommit: batch.beforeCommit,
    batchTally,
    setFault(f) {
      fault = f;
    },
    raw,
    changes,
    onChange(listener) {
      listeners.push(listener);
    },
    events,
    onEvent(listener) {
      eventListeners.push(listener);
    },
    dataVersionNow() {
      // Through the fault hook like any statement, so a simulated disk fault fails cached reads too.
      const failure = fault?.('PRAGMA data_version');
      if (failure) throw failure;
      return dataVersionThisTurn();
    },
    close() {
      const closeConnection = () => {
        dataVersion.close();
        if (raw.open) raw.close();
      };
      if (!checkpointer) return Promise.resolve(closeConnection());
      return checkpointer.stop().then(closeConnection);
    },
  };
}

export const busyTimeoutMs = 5000;
const maxLockPauseMs = 0.5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * BEGIN IMMEDIATE with a waiting of its own: busy_timeout 0, tried again after 20 µs, 40 µs, … at
 * most maxLockPauseMs apart (Atomics.wait sleeps the thread) until busyTimeoutMs. Why not SQLite's
 * busy handler: its sleeps of 1, 2, 5, 10 … ms kept a waiting worker asleep long after the lock was
 * free.
 */
function createWriteLock(raw: Database.Database): WriteLock {
  const begin = raw.prepare('BEGIN IMMEDIATE');
  const commit = raw.prepare('COMMIT');
  const rollback = raw.prepare('ROLLBACK');
  const noWaiting = raw.prepare('PRAGMA busy_timeout = 0');
  const waiting = raw.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  return {
    begin() {
      const deadline = performance.now() + busyTimeoutMs;
      let pauseMs = 0.02;
      noWaiting.run();
      try {
        for (;;) {
          try {
            return void begin.run();
          } catch (err) {
            if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw err;
          }
          Atomics.wait(sleeper, 0, 0, pauseMs);
          pauseMs = Math.min(maxLockPauseMs, pauseMs * 2);
        }
      } finally {
        waiting.run(); // every other statement keeps SQLite's own waiting
      }
    },
    commit: () => void commit.run(),
    rollback: () => void rollback.run(),
  };
}

/** The safety valve of every writing connection: past 32 MiB of WAL a commit finishes the checkpoint. */
function setWalLimits(raw: Database.Database): void {
  raw.pragma('wal_autocheckpoint = 8192');
  raw.pragma('journal_size_limit = 67108864');
}

export function checkDatabase(db: Db): void {
  db.one('SELECT count(*) AS n FROM counters');
}
