// One scrypt hash at a time on this worker's own thread (see lib/accounts/passwords.ts). The thread
// lowers its own scheduling priority, so under load the request thread gets the CPU first.
import { scryptSync } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../host/thread-priority.mjs';

lowerThreadPriority();

parentPort.on('message', ({ password, salt, keyLength, N, r, p, maxmem }) => {
  try {
    const key = scryptSync(password, salt, keyLength, { N, r, p, maxmem });
    parentPort.postMessage({ key });
  } catch (err) {
    parentPort.postMessage({ error: String(err?.message ? err.message : err) });
  }
});
