import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { createDataVersion, oncePerTurn } from './data-version.ts';
import { migrate } from './schema.ts';
import { createWriteBatch, synchronousResult, type WriteLock } from './write-batch.ts';

type Params = unknown[];

/** The tiny SQL helper every domain function takes as its first argument. */
export interface Db {
  /** First row or undefined. */
  one<T>(sql: string, ...params: Params): T | undefined;
  all<T>(sql: string, ...params: Params): T[];
  /**
   * The first column of the first row, for a query that always answers one row (a count, a total):
   * `db.value('SELECT count(*) FROM mutes WHERE uid = ?', uid)`. Throws when it answers none.
   */
  value<T = number>(sql: string, ...params: Params): T;
  run(sql: string, ...params: Params): { changes: number; lastInsertRowid: number };
  /** Whether the statement leaves the database as it is (better-sqlite3's `readonly`; an `UPDATE … RETURNING` is not). */
  isReadOnly(sql: string): boolean;
  /** Runs fn in one transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T;
  /**
   * Queues fn to run with the other writes queued this turn in one transaction (lib/db/write-batch.ts):
   * each in its own savepoint, one COMMIT for all; the promise settles after that COMMIT, so an
   * answer sent on it is durable. fn's own throw rejects only its promise (rolling back only its
   * work); a failed BEGIN or COMMIT rejects them all and stores nothing. Why only creates use it:
   * a commit costs about a third of a create's time under the lock, and creates were the one write
   * below target with two workers; votes with two workers already meet it, and every other write
   * is rare. fn must be synchronous (a promise: TypeError).
   */
  txBatched<T>(fn: () => T): Promise<T>;
  /**
   * Inside a txBatched write: runs fn once the batch's writes are done, outside their savepoints,
   * before the COMMIT (dropped when the write, or the nested db.tx inside it, that asked for it
   * fails, even if the write catches that error; a throw fails the batch); anywhere else at
   * once. Why: FTS5 writes its pending index data to disk at every SAVEPOINT,
   * so a search-index row added inside each create's savepoint made one index segment per create
   * (and the merges that follow); added here, a batch of creates makes one (lib/search/index.ts).
   */
  beforeCommit(fn: () => void): void;
  /** Writes committed by txBatched and the commits they took, since the start (read by lib/metrics). */
  readonly batchTally: { writes: number; commits: number };
  /**
   * Test hook: while set, every statement throws the returned error (simulates a broken disk).
   * It is also asked with 'COMMIT' at the end of each tx, so a full disk can fail the commit itself.
   */
  setFault(fault: ((sql: string) => Error | undefined) | undefined): void;
  readonly raw: Database.Database;
  /** Tells every listener what a write through this connection changed; a domain calls it in the write's own synchronous call. */
  readonly changes: ChangeListener;
  /** Registers a listener of `changes` (the delivery layer's response cache, lib/http/response-cache.ts). */
  onChange(listener: ChangeListener): void;
  /** Tells every listener what a write did that other servers may hear of; a domain calls it inside the write's transaction. */
  readonly events: EventListener;
  /** Registers a listener of `events` (federation's outbox, lib/federation/outbox.ts). */
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
  /** A write inside one thread (its root). */
  threadChanged(root: number): void;
  /** An author's list of live entries gained or lost one. */
  userChanged(uid: number): void;
  /** A vote moved a tally (only the drawn pages show counts). */
  votesChanged(): void;
  /** The moderation log has a new row. */
  modlogChanged(): void;
  /** A write that can touch many threads at once (a rename, an avatar, a deletion, a preview). */
  everythingChanged(): void;
}

/** A vote as an event tells it: its mode and when it was cast (an undo names the vote it ends). */
export interface VoteState {
  mode: 'yes' | 'no';
  at: number;
}

/**
 * What a write did, for federation (lib/federation/outbox.ts), which writes its outbox rows in the
 * same transaction: a rolled-back write tells nobody, and a committed one is never lost. Why a
 * hook: federation stands above the domains that write (entries, votes, moderation, accounts),
 * which must not import it.
 */
export interface EventListener {
  entryCreated(pid: number): void;
  entryEdited(pid: number): void;
  /** Deleted by its author, or removed by a moderator (`removed`). */
  entryDeleted(pid: number, removed: boolean): void;
  /** A vote cast, changed or withdrawn: what it was before and is after (undefined: none). */
  voteChanged(pid: number, uid: number, before: VoteState | undefined, after: VoteState | undefined): void;
  entryBumped(pid: number, uid: number, at: number): void;
  /** An account deleted (its row gone already). */
  accountDeleted(uid: number): void;
}

export interface OpenOptions {
  backgroundCheckpoints?: boolean;
  walLimits?: boolean;
  /**
   * BOARD_LITESTREAM=1: Litestream replicates the database and is its only checkpointer. This
   * connection then never checkpoints (wal_autocheckpoint 0, no thread, no valve), whatever the
   * two options above say. Why: Litestream 0.3 copies each WAL frame to its replica before its own
   * checkpoint moves it into the database; a checkpoint by anyone else that lets the WAL restart
   * in the moment Litestream's read lock is released overwrites frames it has not copied, and it
   * must start a new generation (a full snapshot upload) — the Litestream docs' "Disable
   * autocheckpoints" tip. Litestream's own checkpoints keep the WAL bounded (PASSIVE past 1000
   * pages, RESTART past 10,000).
   */
  litestream?: boolean;
  /** Where each migration of an existing database is told, one line each (a new database is built silently). */
  log?: (line: string) => void;
  mustExist?: boolean;
  /** txBatched's window: 0 (the default) runs the queue at setImmediate, more waits that many ms (lib/db/write-batch.ts). */
  batchWindowMs?: number;
}

/**
 * Opens (and migrates) the database: WAL, foreign keys, busy timeout, statements cached by text.
 * Checkpoints run on a worker thread (backgroundCheckpoints), not inside a request's commit; a
 * cluster worker sets only `walLimits` (the valve below), since the job runner's thread checkpoints
 * the one database for all. `mustExist`: fail instead of creating an empty database (board-admin
 * never creates a board).
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
  // Statement journals (one per savepoint, lib/db/write-batch.ts) stay in memory instead of spilling
  // to a temporary file past 64 KiB, where a batch of creates wrote journal pages for every create
  // (docs/SCALING.md "Reads and writes per core").
  // Temporary tables and sorts go to memory too; every query here is bounded (LIMIT, or a small
  // GROUP BY).
  raw.pragma('temp_store = MEMORY');
  raw.pragma('cache_size = -32768'); // 32 MiB: a reply touches pages of up to 50 ancestors and their index entries
  if (options.litestream) raw.pragma('wal_autocheckpoint = 0'); // before the migrations: they write too
  const steps = migrate(raw);
  // An upgrade says what it did and how long it took (a long one explains a slow start); a new
  // database's build from schema 0 is no news.
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

  /** value's statements: better-sqlite3's pluck mode belongs to a statement, so they have a cache of their own. */
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
    // IMMEDIATE: the write lock is taken (waiting up to 5 s, createWriteLock) before the first read. A
    // deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
    // process committed in between, which several server processes (BOARD_WORKERS) would hit.
    tx: (fn) => {
      const body = () => {
        const result = synchronousResult(fn());
        const failure = fault?.('COMMIT');
        if (failure) throw failure; // rolls the transaction back, as a failed commit would
        return result;
      };
      if (raw.inTransaction) return batch.savepoint(body); // nested: a savepoint
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

/** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY (a 500). */
export const busyTimeoutMs = 5000;
/** The longest pause between two tries for the write lock, in ms. */
const maxLockPauseMs = 0.5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * BEGIN IMMEDIATE with a waiting of its own. Why not SQLite's busy handler: it sleeps 1, 2, 5,
 * 10, 15, 20 … ms between tries, while another worker holds the write lock for about a
 * millisecond per transaction, so a waiting worker, its event loop and reads included, slept long
 * after the lock was free. So BEGIN runs with busy_timeout 0 and is tried again after 20 µs,
 * 40 µs, … at most 0.5 ms apart (Atomics.wait: the thread sleeps, no spinning), until the same 5 s
 * deadline (docs/SCALING.md "Reads and writes per core"). Past the deadline SQLite's own
 * SQLITE_BUSY error ("database is locked") reaches the client: 500 internal, logged. Only BEGIN is
 * tried again, never the transaction's body: it has not run yet when BEGIN fails.
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

/**
 * Copies WAL frames back into the database on a worker with its own connection, so a request's
 * commit rarely pays for it. A checkpoint on another thread can only finish the frames that
 * existed when it started, and SQLite rewinds the WAL only once every frame is copied; under
 * steady writes that never happens on its own. So the writing connection keeps a safety valve:
 * past 32 MiB of WAL it completes the (small, already mostly copied) rest itself after a commit,
 * the next write rewinds the WAL, and journal_size_limit trims the file. The valve's checkpoint is
 * PASSIVE: while the worker's own checkpoint runs it does nothing, so the WAL may grow past 32 MiB
 * by what is written during one of the worker's checkpoints, and is rewound after it.
 */
function startCheckpointer(path: string) {
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
    workerData: { path, intervalMs: 200 },
    execArgv: [],
  });
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
        worker.once('error', () => resolve());
        worker.postMessage('stop');
      }),
  };
}

/** The safety valve of every writing connection: past 32 MiB of WAL a commit finishes the checkpoint. */
function setWalLimits(raw: Database.Database): void {
  raw.pragma('wal_autocheckpoint = 8192'); // pages: 32 MiB
  raw.pragma('journal_size_limit = 67108864');
}

/** Reads one small table, so a broken or missing database throws instead of looking healthy. */
export function checkDatabase(db: Db): void {
  db.one('SELECT count(*) AS n FROM counters');
}
