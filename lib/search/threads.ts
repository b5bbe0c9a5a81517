import { Worker } from 'node:worker_threads';
import { busyTimeoutMs } from '../db/db.ts';
import { ApiError } from '../errors.ts';
import { SlotRefused, type QueueBound, type Semaphore } from '../host/semaphore.ts';

/**
 * The search threads (docs/API.md "Search"): the index's match runs on worker threads with
 * read-only connections of their own (lib/search/search-worker.mjs), never on the event loop that
 * answers every other request. Why: a match of many common words reads long lists of the index,
 * and run on the event loop, four connections of such searches moved an honest reader's feed page
 * from 5 ms to over half a second (issue 28). How many run at once is bounded by the machine's
 * `search` slots (lib/host/machine-slots.ts: two, across every server process with BOARD_WORKERS), so a process
 * never needs more threads than that; they start on first use and stay.
 *
 * No time bound inside a thread: better-sqlite3 cannot interrupt a running statement (no
 * sqlite3_interrupt, no progress handler), Worker.terminate() takes effect only once the statement
 * has returned, and a match cut into rowid ranges, checked for time between them, made ordinary
 * searches 10–300 times slower (FTS5 reads a term's whole list again for each range). One
 * search's work is bounded by the shape of q instead (maxSearchLength characters, maxSearchTerms
 * terms, lib/product.ts), and the slots and the line below bound how many run and wait.
 */

export interface SearchThreadOptions {
  /** Tests: every job waits inside its thread until release(), as a long search would hold it. */
  held?: boolean;
  /**
   * Tests that hold jobs: how long a search may wait in the line before search.busy (default the
   * line's bound), so that a slow machine cannot turn a held wait into a refusal.
   */
  maxWaitMs?: number;
}

export interface SearchThreads {
  /** Runs one read statement on a search thread, inside one of the machine's search slots; 503 search.busy when the line is full. */
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  /** The search line right now: searches running (in this process's share of the slots) and waiting. */
  load(): { running: number; waiting: number };
  /** Tests: lets the held jobs, and every later one, run. */
  release(): void;
  /** Stops the threads (at shutdown, once the requests in flight are answered). */
  close(): Promise<void>;
}

/**
 * The line's bound: at most 8 searches wait in a process, none longer than 2 s; past it 503
 * search.busy with Retry-After. Why these: an ordinary search takes 1–15 ms at a million entries
 * (bench/search-results.md), so 8 waiting is a moment's work for two threads, and the line fills
 * only under a flood of costly searches; then an answer to come back soon is better than a wait
 * that grows with the flood. Not scaled by BOARD_LIMITS: it bounds the machine's work, not a person.
 */
export const searchQueueBound: QueueBound = { maxWaiting: 8, maxWaitMs: 2_000 };
/** Seconds a refused search is asked to wait: the line's longest wait. */
const busyRetrySeconds = searchQueueBound.maxWaitMs / 1000;

/** Each thread's SQLite page cache, in KiB: the lists of common terms stay in memory between searches. */
const cacheKiB = 16 * 1024;

interface Job {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

/** Starts the (lazily spawned) threads of one process, reading the database at `dbPath`, in the machine's search `slot`. */
export function startSearchThreads(dbPath: string, slot: Semaphore, options: SearchThreadOptions = {}): SearchThreads {
  const gate = options.held ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
  const threads = new Set<Worker>();
  const idle: Worker[] = [];
  const jobs = new Map<Worker, Job>();
  let closed = false;
  const bound =
    options.maxWaitMs === undefined ? searchQueueBound : { ...searchQueueBound, maxWaitMs: options.maxWaitMs };

  const spawn = (): Worker => {
    const worker = new Worker(new URL('./search-worker.mjs', import.meta.url), {
      workerData: { path: dbPath, busyTimeoutMs, cacheKiB, gate: gate?.buffer },
      execArgv: [],
    });
    threads.add(worker);
    worker.on('message', (message: { rows?: unknown[]; error?: string }) => {
      const job = jobs.get(worker);
      jobs.delete(worker);
      worker.unref();
      idle.push(worker);
      if (message.rows) job?.resolve(message.rows);
      else job?.reject(new Error(`search failed: ${message.error}`));
    });
    // A thread that dies fails its job and is not used again; the next search starts a fresh one.
    const gone = (err: Error) => {
      threads.delete(worker);
      if (idle.includes(worker)) idle.splice(idle.indexOf(worker), 1);
      const job = jobs.get(worker);
      jobs.delete(worker);
      job?.reject(err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`search thread ended (exit code ${code})`)));
    return worker;
  };

  const release = () => {
    if (!gate) return;
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
  };

  const run = (sql: string, params: unknown[]) =>
    new Promise<unknown[]>((resolve, reject) => {
      if (closed) return reject(new Error('the search threads are stopped'));
      const worker = idle.pop() ?? spawn();
      // Referenced only while it searches: a search in flight keeps the process alive, an idle thread does not.
      worker.ref();
      jobs.set(worker, { resolve, reject });
      worker.postMessage({ sql, params });
    });

  return {
    async all<T>(sql: string, params: unknown[]): Promise<T[]> {
      try {
        return (await slot(() => run(sql, params), undefined, bound)) as T[];
      } catch (err) {
        if (err instanceof SlotRefused)
          throw new ApiError(503, 'search.busy', {
            headers: { 'Retry-After': String(busyRetrySeconds) },
            limit: 'brake/search',
          });
        throw err;
      }
    },
    load: () => slot.load(),
    release,
    async close() {
      closed = true;
      release();
      await Promise.all([...threads].map((worker) => worker.terminate()));
    },
  };
}
