// One search thread (lib/search/threads.ts): runs the SQL text and parameters the request thread
// prepared, one statement at a time, on its own read-only connection, so a costly search never
// holds the event loop that answers every other request. The thread takes the lowest scheduling
// priority (nice 19; the hashing threads take 10): a search's work, which can be the largest of
// any request's, yields to everything else, and at 10 two busy search threads still delayed the
// request thread's wake-ups on 2 cores (bench/search-results.md, "Searches under attack").
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../host/thread-priority.mjs';

lowerThreadPriority(19);

const Database = createRequire(import.meta.url)('better-sqlite3');
// Read-only: whatever a statement says, this connection cannot write. The request thread's
// connection keeps the database in WAL mode, so reads here never wait for its writes.
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
db.pragma(`cache_size = -${workerData.cacheKiB}`);

// Statements by text; the request thread sends only a few distinct texts, so the map stays small.
const statements = new Map();
const maxStatements = 20;
const statementFor = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    if (statements.size >= maxStatements) statements.clear();
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};

// Tests: while the gate holds 0, each job waits here, holding this thread as a long search would.
const gate = workerData.gate ? new Int32Array(workerData.gate) : undefined;

parentPort.on('message', ({ sql, params }) => {
  if (gate) Atomics.wait(gate, 0, 0);
  try {
    parentPort.postMessage({ rows: statementFor(sql).all(...params) });
  } catch (err) {
    parentPort.postMessage({ error: String(err?.message ? err.message : err) });
  }
});
