// One search thread (lib/search/threads.ts): runs the SQL text and parameters the request thread
// prepared, one statement at a time, on a read-only connection of its own, so a costly search never
// holds the event loop that answers every other request. The thread takes the lowest scheduling
// priority (nice 19; the hashing threads take 10): a search's work, which can be the largest of
// any request's, yields to everything else, and at 10 two busy search threads still delayed the
// request thread's wake-ups on 2 cores (bench/search-results.md, "Searches under attack").
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../host/thread-priority.mjs';

lowerThreadPriority(19);

const Database = createRequire(import.meta.url)('better-sqlite3');
// Each database's read-only connection (whatever a statement says, it cannot write) and its
// statements by text, opened on the first search there. The request thread's connection keeps the
// database in WAL mode, so reads here never wait for its writes.
const databases = new Map();
const maxStatements = 20;

function statementFor(path, sql) {
  let open = databases.get(path);
  if (!open) {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
    db.pragma(`cache_size = -${workerData.cacheKiB}`);
    open = { db, statements: new Map() };
    databases.set(path, open);
  }
  let statement = open.statements.get(sql);
  if (!statement) {
    if (open.statements.size >= maxStatements) open.statements.clear();
    statement = open.db.prepare(sql);
    open.statements.set(sql, statement);
  }
  return statement;
}

parentPort.on('message', ({ path, sql, params, gate, close }) => {
  if (close) {
    databases.get(close)?.db.close();
    databases.delete(close);
    return;
  }
  // Tests: while the gate holds 0, the job waits here, holding this thread as a long search would.
  if (gate) Atomics.wait(new Int32Array(gate), 0, 0);
  try {
    parentPort.postMessage({ rows: statementFor(path, sql).all(...params) });
  } catch (err) {
    parentPort.postMessage({ error: String(err?.message ? err.message : err) });
  }
});
