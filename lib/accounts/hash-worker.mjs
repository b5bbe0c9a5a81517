// One scrypt hash at a time on this worker's own thread (see lib/accounts/passwords.ts). The thread
// lowers its own scheduling priority, so under load the request thread gets the CPU first.
import { scryptSync } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

try {
  // Linux: /proc/thread-self names this thread; setpriority on a thread id affects only it.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0) setPriority(tid, 10);
} catch {
  // Not Linux, or not allowed: hashing still works, just at normal priority.
}

parentPort.on('message', ({ id, password, salt, keyLength, N, r, p, maxmem }) => {
  try {
    const key = scryptSync(password, salt, keyLength, { N, r, p, maxmem });
    parentPort.postMessage({ id, key });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err?.message ? err.message : err) });
  }
});
