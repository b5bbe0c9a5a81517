import type Database from 'better-sqlite3';

/** The write lock of lib/db/db.ts: BEGIN IMMEDIATE with its own waiting, COMMIT, ROLLBACK. */
export interface WriteLock {
  begin(): void;
  commit(): void;
  rollback(): void;
}

/**
 * At most this many queued writes share one transaction, so one hold of the lock stays short while
 * another worker waits for it. The queue itself is bounded by the open connections (one create in
 * flight each), and the per-account and per-address create limits come before it.
 */
export const maxWritesPerCommit = 256;

/**
 * A cluster worker runs its queue this many ms after the first write queued, not at the end of the
 * turn. Why: with two workers each hand-over of the lock costs a refill of the pages the other's
 * commit dropped; a short window makes batches bigger and hand-overs rarer (the rounds:
 * bench/results.md).
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
  commitFault: () => Error | undefined;
  rolledBack: () => void;
  committed?: (writes: number) => void;
  windowMs: number;
}

/**
 * The queue behind db.txBatched (lib/db/db.ts, which says what it promises). The writes and the
 * COMMIT run in one synchronous callback, so no request can read between a write (and the cache
 * invalidation it makes) and the commit.
 */
export function createWriteBatch(raw: Database.Database, lock: WriteLock, options: WriteBatchOptions) {
  const queue: Queued[] = [];
  let scheduled = false;
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
    beforeCommit(fn: () => void): void {
      if (askedByWrite) askedByWrite.push(fn);
      else fn();
    },
  };
}
