// Runs SQLite WAL checkpoints on its own thread, one connection per open database, so the request
// thread never stalls copying the WAL back into the database file (see lib/db/db.ts).
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

const Database = createRequire(import.meta.url)('better-sqlite3');
const databases = new Map();

const checkpoint = (db) => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy or closing: the next round catches up
  }
};

parentPort.on('message', (message) => {
  if (message.start) {
    const { id, path, intervalMs } = message.start;
    try {
      const db = new Database(path);
      db.pragma('busy_timeout = 1000');
      databases.set(id, { db, timer: setInterval(() => checkpoint(db), intervalMs) });
    } catch {
      // not opened: that database's writing connection checkpoints by its valve alone
    }
  } else if (message.stop !== undefined) {
    const open = databases.get(message.stop);
    databases.delete(message.stop);
    if (open) {
      clearInterval(open.timer);
      checkpoint(open.db);
      open.db.close();
    }
    parentPort.postMessage({ stopped: message.stop });
  }
});
