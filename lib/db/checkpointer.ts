import { Worker } from 'node:worker_threads';

/**
 * Checkpoints on a worker thread with a connection of its own per database, so a request's commit
 * rarely pays for one. Such a checkpoint cannot finish frames written while it runs, so under
 * steady writes the WAL would never rewind: the writing connection's valve (db.ts setWalLimits)
 * completes the rest after a commit. One thread serves every database the process opens, as a
 * thread costs more to start than a short-lived database (the admin CLI's, a test's) lives.
 */
let thread: Worker | undefined;
let nextId = 1;
const stopping = new Map<number, () => void>();

function checkpointThread(): Worker {
  if (thread) return thread;
  const worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { execArgv: [] });
  worker.on('message', (message: { stopped: number }) => {
    stopping.get(message.stopped)?.();
    stopping.delete(message.stopped);
    if (stopping.size === 0) worker.unref();
  });
  const gone = () => {
    if (thread === worker) thread = undefined;
    for (const stopped of stopping.values()) stopped();
    stopping.clear();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  worker.unref(); // after the listeners, which would hold it again: the process may end while it runs
  thread = worker;
  return worker;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, intervalMs = 200): Checkpointer {
  const worker = checkpointThread();
  const id = nextId++;
  worker.postMessage({ start: { id, path, intervalMs } });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (thread !== worker) return resolve();
        stopping.set(id, resolve);
        worker.ref();
        worker.postMessage({ stop: id });
      }),
  };
}
