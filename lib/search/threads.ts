import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { busyTimeoutMs } from '../db/db.ts';
import { ApiError } from '../errors.ts';
import { SlotRefused, type QueueBound, type Semaphore } from '../host/semaphore.ts';

/**
 * The search threads (docs/API.md "Search"): the index's match runs on worker threads with
 * read-only connections of their own (lib/search/search-worker.mjs), never on the event loop that
 * answers every other request, where a few costly searches slowed every reader's page. The
 * machine's `search` slots bound how many run at once, across every process. No time bound inside a
 * thread: better-sqlite3 cannot interrupt a running statement, and a match cut into rowid ranges
 * made ordinary searches many times slower (bench/results.md). One search's work is bounded by the
 * shape of q instead (maxSearchLength, maxSearchTerms), and the slots and the line below bound how
 * many run and wait.
 */

export interface SearchThreadOptions {
  held?: boolean;
  maxWaitMs?: number;
  holdRefusal?: (ms: number) => Promise<void>;
}

export interface SearchThreads {
  all<T>(sql: string, params: unknown[]): Promise<T[]>;
  load(): { running: number; waiting: number };
  holdRefusal(ms: number): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

/**
 * The line's bound, past which 503 search.busy with Retry-After: an ordinary search takes a few ms
 * (bench/search-results.md), so eight waiting is a moment's work for two threads, and the line
 * fills only under a flood of costly searches. Not scaled by BOARD_LIMITS: it bounds the machine,
 * not a person.
 */
export const searchQueueBound: QueueBound = { maxWaiting: 8, maxWaitMs: 2_000 };
const busyRetrySeconds = searchQueueBound.maxWaitMs / 1000;

/** Each thread's SQLite page cache, in KiB: the lists of common terms stay in memory between searches. */
const cacheKiB = 16 * 1024;

interface Job {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

/** The process's search threads, shared by its boards: each keeps a connection per database it was asked about. */
const threads = new Set<Worker>();
const idle: Worker[] = [];
const jobs = new Map<Worker, Job>();

function spawn(): Worker {
  const worker = new Worker(new URL('./search-worker.mjs', import.meta.url), {
    workerData: { busyTimeoutMs, cacheKiB },
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
  const gone = (err: Error) => {
    threads.delete(worker);
    if (idle.includes(worker)) idle.splice(idle.indexOf(worker), 1);
    const job = jobs.get(worker);
    jobs.delete(worker);
    job?.reject(err);
  };
  worker.on('error', gone);
  worker.on('exit', (code) => gone(new Error(`search thread ended (exit code ${code})`)));
  worker.unref();
  return worker;
}

export function startSearchThreads(dbPath: string, slot: Semaphore, options: SearchThreadOptions = {}): SearchThreads {
  const gate = options.held ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
  let closed = false;
  const bound =
    options.maxWaitMs === undefined ? searchQueueBound : { ...searchQueueBound, maxWaitMs: options.maxWaitMs };

  const release = () => {
    if (!gate) return;
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
  };

  const run = (sql: string, params: unknown[]) =>
    new Promise<unknown[]>((resolve, reject) => {
      if (closed) return reject(new Error('the search threads are stopped'));
      const worker = idle.pop() ?? spawn();
      worker.ref();
      jobs.set(worker, { resolve, reject });
      worker.postMessage({ path: dbPath, sql, params, gate: gate?.buffer });
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
    holdRefusal: options.holdRefusal ?? ((ms) => sleep(ms)),
    release,
    async close() {
      closed = true;
      release();
      // Each thread closes its connection to this database after the search it may be running.
      for (const worker of threads) worker.postMessage({ close: dbPath });
    },
  };
}
