import type Database from 'better-sqlite3';

/** The write lock of lib/db/db.ts: BEGIN IMMEDIATE with its own waiting, COMMIT, ROLLBACK. */
export interface WriteLock {
  begin(): void;
  commit(): void;
  rollback(): void;
}

/**
 * At most this many queued writes share one transaction; the rest go to the next run. Why 256:
 * the lock is held only for the database work, about 0.4 ms per create on the 1M board, so one
 * hold stays near 100 ms at worst while another worker (or the job runner) waits for it. The
 * queue itself holds one write per create request in flight, and Node handles one request per
 * connection at a time (pipelined ones wait their turn): at most one per open connection. The
 * server sets no connection cap of its own (no server.maxConnections, lib/app.ts), so the bound
 * is the process's file limit (LimitNOFILE=65536, deploy/board.service), and with limits on the
 * per-account and per-address create limits (lib/limits/write-limits.ts) come before the queue.
 */
export const maxWritesPerCommit = 256;

/**
 * A cluster worker runs its queue this many ms after the first write queued, not at the end of the
 * turn. Why: with two workers each batch reads back the pages the other worker's commit dropped
 * from its cache, and each hand-over of the lock costs that refill; a short window makes batches
 * bigger and hand-overs rarer. Of the end of the turn, 1 ms and 2 ms, 2 ms was the steadiest
 * (docs/SCALING.md "Reads and writes per core"; the rounds are in bench/results.md). A single
 * process keeps setImmediate: nobody else takes the lock between its batches.
 */
export const clusterBatchWindowMs = 2;

/**
 * A transaction body's result, refused when it is a promise: the body would go on after COMMIT,
 * outside the transaction (db.tx and txBatched both ask this).
 */
export function synchronousResult<T>(result: T): T {
  if (typeof (result as { then?: unknown } | undefined)?.then === 'function')
    throw new TypeError('a transaction cannot return a promise');
  return result;
}

interface Queued {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface WriteBatchOptions {
  /** Asked before COMMIT: an error fails the commit (the fault hook's 'COMMIT' check). */
  commitFault: () => Error | undefined;
  /** Called when a batch was rolled back as a whole (the response cache forgets everything). */
  rolledBack: () => void;
  /** Told the size of each committed batch (metrics). */
  committed?: (writes: number) => void;
  /** 0: the queue runs at setImmediate; more: that many ms after the first write queued (cluster workers). */
  windowMs: number;
}

/**
 * The queue behind db.txBatched (lib/db/db.ts): writes queued in one event-loop turn run in one
 * transaction, each in its own savepoint, and their promises settle only after COMMIT returned.
 * A write that throws rolls back its own savepoint and rejects its own promise; a failed BEGIN
 * or COMMIT rejects every promise of the batch and stores nothing. The writes and the COMMIT run
 * in one synchronous callback, so no request can read between a write (and the response-cache
 * invalidation it makes) and the commit.
 */
export function createWriteBatch(raw: Database.Database, lock: WriteLock, options: WriteBatchOptions) {
  const queue: Queued[] = [];
  let scheduled = false;
  /** What the write running now asked to run before COMMIT (beforeCommit); undefined outside a batch. */
  let askedByWrite: (() => void)[] | undefined;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    if (options.windowMs > 0) setTimeout(run, options.windowMs);
    else setImmediate(run);
  }

  function run(): void {
    scheduled = false;
    // Not nested into a transaction someone else has open: the next run takes the batch.
    if (raw.inTransaction) return schedule();
    const batch = queue.splice(0, maxWritesPerCommit);
    // Queued from now on (also by a write of this batch) runs in the next transaction.
    if (queue.length > 0) schedule();
    commitBatch(batch);
  }

  function commitBatch(batch: Queued[]): void {
    try {
      lock.begin();
    } catch (err) {
      return failAll(batch, err);
    }
    const outcomes: Outcome[] = [];
    const beforeCommitting: (() => void)[] = [];
    for (const job of batch) {
      const asked: (() => void)[] = [];
      askedByWrite = asked;
      const outcome = attempt(job.fn);
      askedByWrite = undefined;
      // Some errors (a full disk, I/O) make SQLite roll back the whole transaction: the earlier
      // writes are gone too, and a later one must not run outside the lock.
      if (!outcome.ok && !raw.inTransaction) return failAll(batch, outcome.error);
      beforeCommitting.push(...asked); // empty when the write failed: savepoint dropped it
      outcomes.push(outcome);
    }
    try {
      for (const fn of beforeCommitting) fn();
      const failure = options.commitFault();
      if (failure) throw failure;
      lock.commit();
    } catch (err) {
      if (raw.inTransaction) lock.rollback();
      return failAll(batch, err);
    }
    options.committed?.(batch.length);
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  function attempt(fn: () => unknown): Outcome {
    try {
      const value = savepoint(() => synchronousResult(fn()));
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /**
   * A savepoint inside whatever transaction is open (each batched write, and db.tx nested): what
   * fn asked of beforeCommit goes with it when it throws, even when the write catches that error.
   */
  function savepoint<T>(fn: () => T): T {
    const asked = askedByWrite;
    const before = asked?.length ?? 0;
    try {
      return raw.transaction(fn)();
    } catch (err) {
      asked?.splice(before);
      throw err;
    }
  }

  function failAll(batch: Queued[], err: unknown): void {
    options.rolledBack();
    for (const job of batch) job.reject(err);
  }

  return {
    txBatched: <T>(fn: () => T): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      }),
    savepoint,
    /**
     * Inside a batched write: fn runs after every write of the batch, outside their savepoints,
     * right before the COMMIT (and not at all when the write or nested savepoint that asked for
     * it failed); a throw
     * fails the whole batch, as a failed COMMIT would. Anywhere else: fn runs at once.
     */
    beforeCommit(fn: () => void): void {
      if (askedByWrite) askedByWrite.push(fn);
      else fn();
    },
  };
}
