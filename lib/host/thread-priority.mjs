// Lowers the scheduling priority of the calling thread only (nice 10 unless told otherwise), so
// under load the request thread gets the CPU first. Used by the worker threads that do heavy work
// for requests: password hashing (lib/hash-worker.mjs) and search (lib/search/search-worker.mjs),
// and the federation delivery thread (lib/federation/delivery-worker.ts), which asks for the lowest.
// A .mjs file, so the workers load it without tsx.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThreadPriority(niceness = 10) {
  try {
    // Linux: /proc/thread-self names this thread; setpriority on a thread id affects only it.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, niceness);
  } catch {
    // Not Linux, or not allowed: the work still runs, just at normal priority.
  }
}
