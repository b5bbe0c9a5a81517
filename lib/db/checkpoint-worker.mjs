// Runs SQLite WAL checkpoints on its own thread and connection, so the request thread never
// stalls copying the WAL back into the database file (see lib/db/db.ts).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const Database = createRequire(import.meta.url)('better-sqlite3');
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');

const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or closing: the next round catches up
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage('stopped');
});
