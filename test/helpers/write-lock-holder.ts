import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Another connection that holds the database's write lock: on a thread of its own (a connection on
 * this thread could not let go while this thread waits for it), it begins an IMMEDIATE
 * transaction, inserts `row` into `table` (when given), and commits after `holdMs`. `locked`
 * resolves once it holds the lock, `released` once it has committed and closed.
 */
export async function holdWriteLock(
  path: string,
  holdMs: number,
  insert?: { table: string; row: string },
): Promise<{ released: Promise<void> }> {
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    const Database = require(workerData.module);
    const db = new Database(workerData.path);
    db.exec('BEGIN IMMEDIATE');
    if (workerData.insert) db.prepare('INSERT INTO ' + workerData.insert.table + ' VALUES (?)').run(workerData.insert.row);
    parentPort.postMessage('locked');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
    db.exec('COMMIT');
    db.close();`;
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(source, { eval: true, workerData: { module, path, holdMs, insert } });
  const released = new Promise<void>((resolve, reject) => {
    worker.once('exit', () => resolve());
    worker.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return { released };
}
